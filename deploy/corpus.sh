#!/usr/bin/env bash
# corpus.sh (make corpus): the whole BBC politics development corpus read by `polgraph ingest` into an empty
# graph, a scripted review that approves the surest proposals, and the explorer serving the result until
# Ctrl-C. The review is a script, not a person: it runs under an API key named "scripted-review", so the
# audit trail (polgraph history) names it on every claim it approved.
set -euo pipefail

CORPUS=${CORPUS:-../shared/corpus/bbc-politics-dev}
DATA=${DATA:-.data/corpus}
ADDR=${ADDR:-127.0.0.1:50062}
HTTP=${HTTP:-127.0.0.1:8082}
OFFSET=${OFFSET:-1300}          # Dgraph's ports moved up by this much: the alpha's gRPC on 10380
MIN_CONFIDENCE=${MIN_CONFIDENCE:-0.75}
bin=./bin/polgraph

if [ ! -d "$CORPUS" ]; then
	echo "corpus.sh: no corpus at $CORPUS (set CORPUS=folder)" >&2
	exit 1
fi
rm -rf "$DATA" # an empty graph, every time
"$bin" run --dataset none --data-dir "$DATA" --addr "$ADDR" --http "$HTTP" --dgraph-port-offset "$OFFSET" &
pid=$!
trap 'kill -INT $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 120); do
	"$bin" stats --server "$ADDR" >/dev/null 2>&1 && break
	kill -0 $pid 2>/dev/null || { echo "corpus.sh: polgraph run stopped" >&2; exit 1; }
	sleep 1
done

dgraph=(--data-dir "$DATA" --dgraph "127.0.0.1:$((9080 + OFFSET))")
key=$("$bin" keys create --name scripted-review --role editor "${dgraph[@]}" | awk '/^key:/ {print $2}')

echo "== ingest $CORPUS"
start=$(date +%s.%N)
"$bin" ingest "${dgraph[@]}" "$CORPUS" | tail -n 1
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "ingest took %.1f s\n", e - s }'

echo "== scripted review: approve every pending REPORTED proposal at least $MIN_CONFIDENCE sure"
start=$(date +%s.%N)
POLGRAPH_API_KEY=$key "$bin" review approve --all --status reported --min-confidence "$MIN_CONFIDENCE" \
	--server "$ADDR" --timeout 10m | tail -n 3
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "review took %.1f s\n", e - s }'

echo "== the graph"
"$bin" stats --server "$ADDR"
echo
echo "The explorer is at http://$HTTP/ (the review view holds what was not approved; an editor key:"
echo "$bin keys create --name YOU --role editor ${dgraph[*]}). Ctrl-C stops."
wait $pid
