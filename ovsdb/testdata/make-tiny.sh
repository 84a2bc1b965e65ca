#!/bin/sh
# Regenerates tiny.db (a standalone database file written by ovsdb-tool from
# tiny.ovsschema and the transactions below) and tiny.dump (what
# ovsdb-client dump reads from ovsdb-server serving it). Needs ovn-central's
# openvswitch tools. Run from this directory.
set -eu
rm -f tiny.db
ovsdb-tool create tiny.db tiny.ovsschema
t() {
  out=$(ovsdb-tool transact tiny.db "[\"Tiny\", $1]")
  case $out in *error*) echo "$out" >&2; exit 1 ;; esac
}
t '{"op":"insert","table":"T","row":{"s":"a","i":-5,"r":1.5,"b":true,"u":["uuid","6b0a8a8e-1b3f-4c55-9d0e-2f0e6f0a1b2c"],"e":"y","opt":"o","oi":3,"set":["set",["q","p"]],"iset":["set",[3,1]],"uset":["uuid","00000000-0000-0000-0000-0000000000a1"],"req":"r1","m":["map",[["k1","v1"],["k2","v2"]]],"mi":["map",[[2,"two"]]],"m1":["map",[["only",1]]]}},
   {"op":"insert","table":"T","row":{"s":"b","e":"x","req":["set",["x"]]}}'
t '{"op":"mutate","table":"T","where":[["s","==","a"]],"mutations":[["set","insert","z"],["set","delete","p"],["iset","insert",2],["m","insert",["map",[["k3","v3"]]]],["m","delete",["set",["k1"]]],["mi","insert",["map",[[-1,"minus"]]]]]},
   {"op":"update","table":"T","where":[["s","==","a"]],"row":{"opt":["set",[]],"i":7,"r":-0.25,"b":false,"e":"x","req":["set",["r2","r1"]]}}'
t '{"op":"update","table":"T","where":[["s","==","a"]],"row":{"m":["map",[["k2","changed"],["k3","v3"]]],"oi":9,"m1":["map",[]]}}'
t '{"op":"delete","table":"T","where":[["s","==","b"]]},
   {"op":"insert","table":"T","row":{"s":"c","e":"x","req":"only","uset":["set",[["uuid","00000000-0000-0000-0000-0000000000c2"],["uuid","00000000-0000-0000-0000-0000000000c1"]]]}}'
t '{"op":"mutate","table":"T","where":[["s","==","c"]],"mutations":[["uset","delete",["uuid","00000000-0000-0000-0000-0000000000c1"]],["iset","insert",["set",[1,2,3]]],["req","insert","another"]]}'
dir=$(mktemp -d)
cp tiny.db "$dir/served.db"
ovsdb-server --detach --no-chdir --pidfile="$dir/pid" --remote=punix:"$dir/sock" \
  --unixctl="$dir/ctl" --log-file="$dir/log" "$dir/served.db"
ovsdb-client -f json dump unix:"$dir/sock" Tiny > tiny.dump
kill "$(cat "$dir/pid")"
rm -rf "$dir" .tiny.db.~lock~
