#!/bin/bash
# Captures the netperf outputs in this directory (see PROVENANCE.md).
# Runs a private netserver on loopback on an unusual port and stops it by its
# own PID. Usage: bash capture.sh [OUTDIR [NAME...]] (NAMEs: only those runs).
set -u
out=${1:-$(dirname "$0")}
shift || true
only=" $* "
ctl=23861  # control port of our own netserver
data=23872 # remote data port
len=3      # seconds per iteration
rr_report=min_latency,mean_latency,P50_LATENCY,P90_LATENCY,P99_LATENCY,max_latency,stddev_latency,transaction_rate
conf=CONFIDENCE_LEVEL,CONFIDENCE_INTERVAL,CONFIDENCE_ITERATION,THROUGHPUT_CONFID
common=THROUGHPUT,THROUGHPUT_UNITS,ELAPSED_TIME,PROTOCOL,DIRECTION,LOCAL_TRANSPORT_RETRANS,REMOTE_TRANSPORT_RETRANS
rr=$rr_report,$conf,$common,REQUEST_SIZE,RESPONSE_SIZE
stream=$conf,$common,LOCAL_SEND_SIZE,REMOTE_RECV_SIZE,TRANSPORT_MSS

netserver -p $ctl -D >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 1

run() {  # run NAME NETPERF-ARGS...: stdout to NAME.txt, stderr to NAME.stderr
  local name=$1
  shift
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || return 0
  timeout 120 netperf -H 127.0.0.1 -p $ctl "$@" >"$out/$name.txt" 2>"$out/$name.stderr"
  echo "$name: exit $?" >>"$out/exit_codes.log"
  [ -s "$out/$name.stderr" ] || rm -f "$out/$name.stderr"
}

# TCP_RR, the report's -O list (plus P50) in each output style.
run tcp_rr_human -t TCP_RR -l $len -- -O $rr_report -P ,$data
run tcp_rr_human_confidence -t TCP_RR -l $len -I 99,5 -- -O $rr_report -P ,$data
run tcp_rr_csv_confidence -t TCP_RR -l $len -I 99,5 -i 3,3 -- -o $rr -P ,$data
run tcp_rr_keyval -t TCP_RR -l $len -- -k $rr -P ,$data
run tcp_rr_keyval_confidence -t TCP_RR -l $len -I 99,5 -i 3,3 -- -k $rr -P ,$data
run tcp_rr_keyval_confidence_met -t TCP_RR -l $len -I 95,50 -i 10,3 -- -k $rr -P ,$data
run tcp_rr_classic -t TCP_RR -l $len -- -P ,$data
# The net phase's runs: -o with its selectors (TCP_RR's with TRANSPORT_MSS,
# which PKB's netperf parser reads for TCP tests).
run tcp_rr_csv -t TCP_RR -l $len -- -o $rr,TRANSPORT_MSS -P ,$data
run tcp_rr_csv_phase -t TCP_RR -l $len -I 99,5 -i 3,3 -- -o $rr,TRANSPORT_MSS -P ,$data
run tcp_stream_csv -t TCP_STREAM -l $len -f m -- -o $stream -P ,$data
# TCP_STREAM, single stream.
run tcp_stream_human -t TCP_STREAM -l $len -f m -- -O THROUGHPUT,THROUGHPUT_UNITS,$conf -P ,$data
run tcp_stream_csv_confidence -t TCP_STREAM -l $len -f m -I 99,5 -i 3,3 -- -o $stream -P ,$data
run tcp_stream_keyval -t TCP_STREAM -l $len -f m -- -k $stream -P ,$data
run tcp_stream_keyval_confidence -t TCP_STREAM -l $len -f m -I 99,5 -i 3,3 -- -k $stream -P ,$data
# Classic output is the only style that prints netperf's own warning.
run tcp_stream_classic_warning -t TCP_STREAM -l $len -f m -I 99,1 -i 3,3 -- -P ,$data
# Failures, stdout and stderr together.
bad() {  # bad NAME NETPERF-ARGS...
  local name=$1
  shift
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || return 0
  timeout ${BAD_TIMEOUT:-30} netperf -H 127.0.0.1 "$@" >"$out/$name.txt" 2>&1
  echo "$name: exit $?" >>"$out/exit_codes.log"
}
bad bad_connection_refused -p $((ctl + 7)) -t TCP_RR -l 1 -- -k $rr
bad bad_unknown_selector -p $ctl -t TCP_RR -l 1 -- -k NOT_A_SELECTOR
# netperf stopped (SIGTERM) 1 s into a 10 s run.
BAD_TIMEOUT=1 bad bad_killed_midrun -p $ctl -t TCP_RR -l 10 -- -k $rr -P ,$data
# netperf's version line, as pkb_ext.netperf and the net phase read it.
if [ "$only" = "  " ] || [[ "$only" == *" netperf_version "* ]]; then
  netperf -V >"$out/netperf_version.txt" 2>&1
  echo "netperf_version: exit $?" >>"$out/exit_codes.log"
fi
