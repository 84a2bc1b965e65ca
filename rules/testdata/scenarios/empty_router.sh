# One logical router without ports: the flows every router has.
ovn-nbctl lr-add lr0
