package rules

import "github.com/northlog/northlog/relations"

// ctBits is the conntrack field that keeps a connection's blocked, natted,
// skip_snat, force_snat and ecmp_reply_port bits: ct_mark where every
// chassis supports it, else ct_label (northd.c ct_blocked_match,
// ct_flag_reg, ct_natted, ct_ecmp_reply_port_match).
func ctBits(f relations.Features) string {
	if f.CTNoMaskedLabel {
		return "ct_mark"
	}
	return "ct_label"
}

// ctLB is the load-balancing conntrack action: ct_lb_mark where every
// chassis supports it, else ct_lb.
func ctLB(f relations.Features) string {
	if f.CTNoMaskedLabel {
		return "ct_lb_mark"
	}
	return "ct_lb"
}
