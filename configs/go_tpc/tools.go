//go:build tools

package tools

import _ "github.com/pingcap/go-tpc/cmd/go-tpc"
