package rules

// switchStatefulRules are the switch flow families of the conntrack stages
// (pre-ACL to stateful) and of DHCP and DNS.
var switchStatefulRules = []Rule{}
