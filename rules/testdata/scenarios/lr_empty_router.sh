# Router defaults: one logical router without ports has the flows of every
# stage of both pipelines, and a disabled router has no datapath at all.
ovn-nbctl lr-add lr0
ovn-nbctl lr-add lr-off -- set Logical_Router lr-off enabled=false
