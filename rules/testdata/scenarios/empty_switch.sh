# One logical switch without ports: the flows every switch has.
ovn-nbctl ls-add sw0
