package rules

// routerRules are the logical router flow families.
var routerRules = []Rule{}
