#!/usr/bin/env bash
# Creates polgraph's Dgraph user on a Dgraph with ACL on, or brings it up to date: the group
# polgraph-service with the rules polgraph needs and no more (read, write and modify each predicate of
# schema/schema.dql; read the reverse of each @reverse predicate; read and write dgraph.type), and the
# user in it with the password given. The same rules as internal/dgraphlocal/acl.go gives the local
# Dgraph's user; running it again changes nothing, or adds the rules of predicates the schema gained.
#
# Everything secret comes from the environment, never the command line:
#   DGRAPH_HTTP               an alpha's HTTP address, e.g. http://127.0.0.1:8080 (through
#                             `kubectl port-forward svc/dgraph-alpha 8080`)
#   DGRAPH_AUTH_TOKEN         the alphas' admin token (--security token=), if they have one
#   GROOT_PASSWORD            groot's password
#   POLGRAPH_DGRAPH_PASSWORD  the password to give polgraph's user
#   POLGRAPH_DGRAPH_USER      the user's name (default polgraph)
# Needs curl and jq. docs/deploy.md has the whole install; deploy/check runs this against a local Dgraph.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
: "${DGRAPH_HTTP:?set DGRAPH_HTTP to the HTTP address of an alpha, e.g. http://127.0.0.1:8080}"
: "${GROOT_PASSWORD:?set GROOT_PASSWORD to the password of groot}"
: "${POLGRAPH_DGRAPH_PASSWORD:?set POLGRAPH_DGRAPH_PASSWORD to the password to give polgraph}"
user=${POLGRAPH_DGRAPH_USER:-polgraph}
group=polgraph-service
for tool in curl jq; do
  command -v "$tool" >/dev/null || { echo "dgraph-acl: needs $tool" >&2; exit 1; }
done

# post PATH JSON [JWT]: the answer of the alpha, or an error naming what it said.
post() {
  local headers=(-H "Content-Type: application/json")
  [ -n "${DGRAPH_AUTH_TOKEN:-}" ] && headers+=(-H "X-Dgraph-AuthToken: $DGRAPH_AUTH_TOKEN")
  [ -n "${3:-}" ] && headers+=(-H "X-Dgraph-AccessToken: $3")
  local out
  out=$(curl -fsS "${headers[@]}" --data-binary @- "$DGRAPH_HTTP$1" <<<"$2") || { echo "dgraph-acl: $1 failed" >&2; return 1; }
  if jq -e '(.errors // []) | length > 0' >/dev/null <<<"$out"; then
    echo "dgraph-acl: $1: $(jq -r '.errors[0].message' <<<"$out")" >&2
    return 1
  fi
  printf '%s' "$out"
}
# admin JWT QUERY VARIABLES: a GraphQL operation on /admin.
admin() {
  local body
  body=$(jq -n --arg q "$2" --argjson v "$3" '{query: $q, variables: $v}')
  post /admin "$body" "$1"
}

jwt=$(post /login "$(jq -n --arg p "$GROOT_PASSWORD" '{userid: "groot", password: $p}')" | jq -r '.data.accessJWT')

# The rules, from the schema as schema.Predicates and schema.Reverses read it.
schema="$root/schema/schema.dql"
rules=$( {
  grep -oE '^p[gq]\.[a-z_]+:' "$schema" | tr -d ':' | jq -R '{predicate: ., permission: 7}'
  grep -E '^p[gq]\.[a-z_]+:.*@reverse' "$schema" | grep -oE '^p[gq]\.[a-z_]+' | jq -R '{predicate: ("~" + .), permission: 4}'
  jq -n '{predicate: "dgraph.type", permission: 6}'
} | jq -s .)

vars=$(jq -n --arg g "$group" --arg u "$user" '{g: $g, u: $u}')
have=$(admin "$jwt" 'query($g: String!, $u: String!) { getGroup(name: $g) { name } getUser(name: $u) { name } }' "$vars")
vars=$(jq -n --arg g "$group" --argjson rules "$rules" '{g: $g, rules: $rules}')
if jq -e '.data.getGroup == null' >/dev/null <<<"$have"; then
  admin "$jwt" 'mutation($g: String!, $rules: [RuleRef]) { addGroup(input: [{name: $g, rules: $rules}]) { group { name } } }' "$vars" >/dev/null
else
  admin "$jwt" 'mutation($g: String!, $rules: [RuleRef!]!) { updateGroup(input: {filter: {name: {eq: $g}}, set: {rules: $rules}}) { group { name } } }' "$vars" >/dev/null
fi
vars=$(jq -n --arg u "$user" --arg pw "$POLGRAPH_DGRAPH_PASSWORD" --arg g "$group" '{u: $u, pw: $pw, g: $g}')
if jq -e '.data.getUser == null' >/dev/null <<<"$have"; then
  admin "$jwt" 'mutation($u: String!, $pw: String!, $g: String!) { addUser(input: [{name: $u, password: $pw, groups: [{name: $g}]}]) { user { name } } }' "$vars" >/dev/null
else
  admin "$jwt" 'mutation($u: String!, $pw: String!, $g: String!) { updateUser(input: {filter: {name: {eq: $u}}, set: {password: $pw, groups: [{name: $g}]}}) { user { name } } }' "$vars" >/dev/null
fi
echo "dgraph-acl: user $user in group $group, with $(jq length <<<"$rules") rules"
