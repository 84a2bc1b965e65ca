package rules

import (
	"fmt"

	"github.com/northlog/northlog/relations/schema"
)

// Pipeline is the direction a logical flow's table belongs to.
type Pipeline uint8

const (
	Ingress Pipeline = iota
	Egress
)

// String returns the SB Logical_Flow pipeline column value.
func (p Pipeline) String() string {
	if p == Egress {
		return "egress"
	}
	return "ingress"
}

// DatapathKind tells logical switches from logical routers.
type DatapathKind uint8

const (
	Switch DatapathKind = iota
	Router
)

// Stage is one stage of a logical switch or router pipeline, as ovn-northd
// names it (northd.c's PIPELINE_STAGES): its identity, which every release
// that has the stage shares. Its table number is not a property of the
// stage but of a release's StageTable, which lists each pipeline's stages
// in order; a stage absent from a release's table is not valid there.
// Stages are compared and stored by value; the constants below are in an
// order that agrees with the table order of every release, so comparing
// stages compares tables.
type Stage uint8

type stageInfo struct {
	kind     DatapathKind
	pipeline Pipeline
	name     string
}

// The stages of every release; those of one release only say so.
const (
	LSInCheckPortSec Stage = iota
	LSInApplyPortSec
	LSInMirror // 26.03
	LSInLookupFDB
	LSInPutFDB
	LSInPreACL
	LSInPreLB
	LSInPreStateful
	LSInACLHint
	LSInACL       // 23.03
	LSInACLEval   // 26.03
	LSInACLSample // 26.03
	LSInACLAction // 26.03
	LSInQoSMark   // 23.03
	LSInQoSMeter  // 23.03
	LSInQoS       // 26.03
	LSInCTExtract // 26.03
	LSInLBAffCheck
	LSInLB
	LSInLBAffLearn
	LSInPreHairpin
	LSInNATHairpin
	LSInHairpin
	LSInACLAfterLB       // 23.03
	LSInACLAfterLBEval   // 26.03
	LSInACLAfterLBSample // 26.03
	LSInACLAfterLBAction // 26.03
	LSInPreNF            // 26.03
	LSInStateful
	LSInNF // 26.03
	LSInARPRsp
	LSInDHCPOptions
	LSInDHCPResponse
	LSInDNSLookup
	LSInDNSResponse
	LSInExternalPort
	LSInL2Lkup
	LSInL2Unknown

	LSOutLookupFDB // 26.03
	LSOutPutFDB    // 26.03
	LSOutPreACL
	LSOutPreLB
	LSOutPreStateful
	LSOutACLHint
	LSOutACL       // 23.03
	LSOutACLEval   // 26.03
	LSOutACLSample // 26.03
	LSOutACLAction // 26.03
	LSOutMirror    // 26.03
	LSOutQoSMark   // 23.03
	LSOutQoSMeter  // 23.03
	LSOutQoS       // 26.03
	LSOutPreNF     // 26.03
	LSOutStateful
	LSOutNF // 26.03
	LSOutCheckPortSec
	LSOutApplyPortSec

	LRInAdmission
	LRInLookupNeighbor
	LRInLearnNeighbor
	LRInIPInput
	LRInDHCPRelayReq // 26.03
	LRInUnSNAT
	LRInPostUnSNAT // 26.03
	LRInDefrag
	LRInCTExtract // 26.03
	LRInLBAffCheck
	LRInDNAT
	LRInLBAffLearn
	LRInECMPStateful
	LRInNDRAOptions
	LRInNDRAResponse
	LRInIPRoutingPre
	LRInIPRouting
	LRInIPRoutingECMP
	LRInPolicy
	LRInPolicyECMP
	LRInDHCPRelayRespChk // 26.03
	LRInDHCPRelayResp    // 26.03
	LRInARPResolve
	LRInChkPktLen
	LRInLargerPkts
	LRInGWRedirect
	LRInNetworkID // 26.03
	LRInARPRequest
	LRInECMPStatefulEgr // 26.03

	LROutChkDNATLocal
	LROutUnDNAT
	LROutPostUnDNAT
	LROutSNAT
	LROutPostSNAT
	LROutEgrLoop
	LROutDelivery

	numStages
)

// stages names every stage; the only place stage names live.
var stages = [numStages]stageInfo{
	LSInCheckPortSec:     {Switch, Ingress, "ls_in_check_port_sec"},
	LSInApplyPortSec:     {Switch, Ingress, "ls_in_apply_port_sec"},
	LSInMirror:           {Switch, Ingress, "ls_in_mirror"},
	LSInLookupFDB:        {Switch, Ingress, "ls_in_lookup_fdb"},
	LSInPutFDB:           {Switch, Ingress, "ls_in_put_fdb"},
	LSInPreACL:           {Switch, Ingress, "ls_in_pre_acl"},
	LSInPreLB:            {Switch, Ingress, "ls_in_pre_lb"},
	LSInPreStateful:      {Switch, Ingress, "ls_in_pre_stateful"},
	LSInACLHint:          {Switch, Ingress, "ls_in_acl_hint"},
	LSInACL:              {Switch, Ingress, "ls_in_acl"},
	LSInACLEval:          {Switch, Ingress, "ls_in_acl_eval"},
	LSInACLSample:        {Switch, Ingress, "ls_in_acl_sample"},
	LSInACLAction:        {Switch, Ingress, "ls_in_acl_action"},
	LSInQoSMark:          {Switch, Ingress, "ls_in_qos_mark"},
	LSInQoSMeter:         {Switch, Ingress, "ls_in_qos_meter"},
	LSInQoS:              {Switch, Ingress, "ls_in_qos"},
	LSInCTExtract:        {Switch, Ingress, "ls_in_ct_extract"},
	LSInLBAffCheck:       {Switch, Ingress, "ls_in_lb_aff_check"},
	LSInLB:               {Switch, Ingress, "ls_in_lb"},
	LSInLBAffLearn:       {Switch, Ingress, "ls_in_lb_aff_learn"},
	LSInPreHairpin:       {Switch, Ingress, "ls_in_pre_hairpin"},
	LSInNATHairpin:       {Switch, Ingress, "ls_in_nat_hairpin"},
	LSInHairpin:          {Switch, Ingress, "ls_in_hairpin"},
	LSInACLAfterLB:       {Switch, Ingress, "ls_in_acl_after_lb"},
	LSInACLAfterLBEval:   {Switch, Ingress, "ls_in_acl_after_lb_eval"},
	LSInACLAfterLBSample: {Switch, Ingress, "ls_in_acl_after_lb_sample"},
	LSInACLAfterLBAction: {Switch, Ingress, "ls_in_acl_after_lb_action"},
	LSInPreNF:            {Switch, Ingress, "ls_in_pre_network_function"},
	LSInStateful:         {Switch, Ingress, "ls_in_stateful"},
	LSInNF:               {Switch, Ingress, "ls_in_network_function"},
	LSInARPRsp:           {Switch, Ingress, "ls_in_arp_rsp"},
	LSInDHCPOptions:      {Switch, Ingress, "ls_in_dhcp_options"},
	LSInDHCPResponse:     {Switch, Ingress, "ls_in_dhcp_response"},
	LSInDNSLookup:        {Switch, Ingress, "ls_in_dns_lookup"},
	LSInDNSResponse:      {Switch, Ingress, "ls_in_dns_response"},
	LSInExternalPort:     {Switch, Ingress, "ls_in_external_port"},
	LSInL2Lkup:           {Switch, Ingress, "ls_in_l2_lkup"},
	LSInL2Unknown:        {Switch, Ingress, "ls_in_l2_unknown"},

	LSOutLookupFDB:    {Switch, Egress, "ls_out_lookup_fdb"},
	LSOutPutFDB:       {Switch, Egress, "ls_out_put_fdb"},
	LSOutPreACL:       {Switch, Egress, "ls_out_pre_acl"},
	LSOutPreLB:        {Switch, Egress, "ls_out_pre_lb"},
	LSOutPreStateful:  {Switch, Egress, "ls_out_pre_stateful"},
	LSOutACLHint:      {Switch, Egress, "ls_out_acl_hint"},
	LSOutACL:          {Switch, Egress, "ls_out_acl"},
	LSOutACLEval:      {Switch, Egress, "ls_out_acl_eval"},
	LSOutACLSample:    {Switch, Egress, "ls_out_acl_sample"},
	LSOutACLAction:    {Switch, Egress, "ls_out_acl_action"},
	LSOutMirror:       {Switch, Egress, "ls_out_mirror"},
	LSOutQoSMark:      {Switch, Egress, "ls_out_qos_mark"},
	LSOutQoSMeter:     {Switch, Egress, "ls_out_qos_meter"},
	LSOutQoS:          {Switch, Egress, "ls_out_qos"},
	LSOutPreNF:        {Switch, Egress, "ls_out_pre_network_function"},
	LSOutStateful:     {Switch, Egress, "ls_out_stateful"},
	LSOutNF:           {Switch, Egress, "ls_out_network_function"},
	LSOutCheckPortSec: {Switch, Egress, "ls_out_check_port_sec"},
	LSOutApplyPortSec: {Switch, Egress, "ls_out_apply_port_sec"},

	LRInAdmission:        {Router, Ingress, "lr_in_admission"},
	LRInLookupNeighbor:   {Router, Ingress, "lr_in_lookup_neighbor"},
	LRInLearnNeighbor:    {Router, Ingress, "lr_in_learn_neighbor"},
	LRInIPInput:          {Router, Ingress, "lr_in_ip_input"},
	LRInDHCPRelayReq:     {Router, Ingress, "lr_in_dhcp_relay_req"},
	LRInUnSNAT:           {Router, Ingress, "lr_in_unsnat"},
	LRInPostUnSNAT:       {Router, Ingress, "lr_in_post_unsnat"},
	LRInDefrag:           {Router, Ingress, "lr_in_defrag"},
	LRInCTExtract:        {Router, Ingress, "lr_in_ct_extract"},
	LRInLBAffCheck:       {Router, Ingress, "lr_in_lb_aff_check"},
	LRInDNAT:             {Router, Ingress, "lr_in_dnat"},
	LRInLBAffLearn:       {Router, Ingress, "lr_in_lb_aff_learn"},
	LRInECMPStateful:     {Router, Ingress, "lr_in_ecmp_stateful"},
	LRInNDRAOptions:      {Router, Ingress, "lr_in_nd_ra_options"},
	LRInNDRAResponse:     {Router, Ingress, "lr_in_nd_ra_response"},
	LRInIPRoutingPre:     {Router, Ingress, "lr_in_ip_routing_pre"},
	LRInIPRouting:        {Router, Ingress, "lr_in_ip_routing"},
	LRInIPRoutingECMP:    {Router, Ingress, "lr_in_ip_routing_ecmp"},
	LRInPolicy:           {Router, Ingress, "lr_in_policy"},
	LRInPolicyECMP:       {Router, Ingress, "lr_in_policy_ecmp"},
	LRInDHCPRelayRespChk: {Router, Ingress, "lr_in_dhcp_relay_resp_chk"},
	LRInDHCPRelayResp:    {Router, Ingress, "lr_in_dhcp_relay_resp"},
	LRInARPResolve:       {Router, Ingress, "lr_in_arp_resolve"},
	LRInChkPktLen:        {Router, Ingress, "lr_in_chk_pkt_len"},
	LRInLargerPkts:       {Router, Ingress, "lr_in_larger_pkts"},
	LRInGWRedirect:       {Router, Ingress, "lr_in_gw_redirect"},
	LRInNetworkID:        {Router, Ingress, "lr_in_network_id"},
	LRInARPRequest:       {Router, Ingress, "lr_in_arp_request"},
	LRInECMPStatefulEgr:  {Router, Ingress, "lr_in_ecmp_stateful_egr"},

	LROutChkDNATLocal: {Router, Egress, "lr_out_chk_dnat_local"},
	LROutUnDNAT:       {Router, Egress, "lr_out_undnat"},
	LROutPostUnDNAT:   {Router, Egress, "lr_out_post_undnat"},
	LROutSNAT:         {Router, Egress, "lr_out_snat"},
	LROutPostSNAT:     {Router, Egress, "lr_out_post_snat"},
	LROutEgrLoop:      {Router, Egress, "lr_out_egr_loop"},
	LROutDelivery:     {Router, Egress, "lr_out_delivery"},
}

// pipelines are a release's stages: the stages of each of its four
// pipelines in table order, as its northd.c PIPELINE_STAGES lists them. A
// stage's table number is its index in its pipeline.
type pipelines struct {
	switchIn, switchOut, routerIn, routerOut []Stage
}

// releaseStages are the stage tables of every release: the data a new
// release adds.
var releaseStages = map[schema.Release]pipelines{
	schema.OVN2303: {
		switchIn: []Stage{
			LSInCheckPortSec, LSInApplyPortSec, LSInLookupFDB, LSInPutFDB,
			LSInPreACL, LSInPreLB, LSInPreStateful, LSInACLHint, LSInACL,
			LSInQoSMark, LSInQoSMeter, LSInLBAffCheck, LSInLB, LSInLBAffLearn,
			LSInPreHairpin, LSInNATHairpin, LSInHairpin, LSInACLAfterLB,
			LSInStateful, LSInARPRsp, LSInDHCPOptions, LSInDHCPResponse,
			LSInDNSLookup, LSInDNSResponse, LSInExternalPort, LSInL2Lkup,
			LSInL2Unknown,
		},
		switchOut: []Stage{
			LSOutPreACL, LSOutPreLB, LSOutPreStateful, LSOutACLHint, LSOutACL,
			LSOutQoSMark, LSOutQoSMeter, LSOutStateful, LSOutCheckPortSec,
			LSOutApplyPortSec,
		},
		routerIn: []Stage{
			LRInAdmission, LRInLookupNeighbor, LRInLearnNeighbor, LRInIPInput,
			LRInUnSNAT, LRInDefrag, LRInLBAffCheck, LRInDNAT, LRInLBAffLearn,
			LRInECMPStateful, LRInNDRAOptions, LRInNDRAResponse,
			LRInIPRoutingPre, LRInIPRouting, LRInIPRoutingECMP, LRInPolicy,
			LRInPolicyECMP, LRInARPResolve, LRInChkPktLen, LRInLargerPkts,
			LRInGWRedirect, LRInARPRequest,
		},
		routerOut: routerEgress,
	},
	schema.OVN2603: {
		switchIn: []Stage{
			LSInCheckPortSec, LSInApplyPortSec, LSInMirror, LSInLookupFDB,
			LSInPutFDB, LSInPreACL, LSInPreLB, LSInPreStateful, LSInACLHint,
			LSInACLEval, LSInACLSample, LSInACLAction, LSInQoS, LSInCTExtract,
			LSInLBAffCheck, LSInLB, LSInLBAffLearn, LSInPreHairpin,
			LSInNATHairpin, LSInHairpin, LSInACLAfterLBEval,
			LSInACLAfterLBSample, LSInACLAfterLBAction, LSInPreNF,
			LSInStateful, LSInNF, LSInARPRsp, LSInDHCPOptions,
			LSInDHCPResponse, LSInDNSLookup, LSInDNSResponse, LSInExternalPort,
			LSInL2Lkup, LSInL2Unknown,
		},
		switchOut: []Stage{
			LSOutLookupFDB, LSOutPutFDB, LSOutPreACL, LSOutPreLB,
			LSOutPreStateful, LSOutACLHint, LSOutACLEval, LSOutACLSample,
			LSOutACLAction, LSOutMirror, LSOutQoS, LSOutPreNF, LSOutStateful,
			LSOutNF, LSOutCheckPortSec, LSOutApplyPortSec,
		},
		routerIn: []Stage{
			LRInAdmission, LRInLookupNeighbor, LRInLearnNeighbor, LRInIPInput,
			LRInDHCPRelayReq, LRInUnSNAT, LRInPostUnSNAT, LRInDefrag,
			LRInCTExtract, LRInLBAffCheck, LRInDNAT, LRInLBAffLearn,
			LRInECMPStateful, LRInNDRAOptions, LRInNDRAResponse,
			LRInIPRoutingPre, LRInIPRouting, LRInIPRoutingECMP, LRInPolicy,
			LRInPolicyECMP, LRInDHCPRelayRespChk, LRInDHCPRelayResp,
			LRInARPResolve, LRInChkPktLen, LRInLargerPkts, LRInGWRedirect,
			LRInNetworkID, LRInARPRequest, LRInECMPStatefulEgr,
		},
		routerOut: routerEgress,
	},
}

// routerEgress is the router egress pipeline, unchanged from 23.03 to 26.03.
var routerEgress = []Stage{
	LROutChkDNATLocal, LROutUnDNAT, LROutPostUnDNAT, LROutSNAT,
	LROutPostSNAT, LROutEgrLoop, LROutDelivery,
}

// Kind says whether the stage belongs to switches or routers.
func (s Stage) Kind() DatapathKind { return stages[s].kind }

// Pipeline is the SB Logical_Flow pipeline of the stage.
func (s Stage) Pipeline() Pipeline { return stages[s].pipeline }

// Name is the stage name northd writes in external_ids:stage-name.
func (s Stage) Name() string { return stages[s].name }

func (s Stage) String() string {
	if s >= numStages {
		return fmt.Sprintf("Stage(%d)", uint8(s))
	}
	return s.Name()
}

// StageTable is one release's stage table: which stages it has and their
// table numbers.
type StageTable struct {
	release schema.Release
	table   [numStages]int16 // -1: not in the release
	byTable map[stageSlot]Stage
	byKind  [2][]Stage
}

// stageSlot is where a stage sits in a release: kind, pipeline, table.
type stageSlot struct {
	kind     DatapathKind
	pipeline Pipeline
	table    int
}

// stageTables are the releases' StageTables, built from releaseStages.
var stageTables = func() map[schema.Release]*StageTable {
	out := map[schema.Release]*StageTable{}
	for r, p := range releaseStages {
		t := &StageTable{release: r, byTable: map[stageSlot]Stage{}}
		for s := range t.table {
			t.table[s] = -1
		}
		for _, pipeline := range [][]Stage{p.switchIn, p.switchOut, p.routerIn, p.routerOut} {
			for i, s := range pipeline {
				t.table[s] = int16(i)
				t.byTable[stageSlot{s.Kind(), s.Pipeline(), i}] = s
				t.byKind[s.Kind()] = append(t.byKind[s.Kind()], s)
			}
		}
		out[r] = t
	}
	return out
}()

// StagesOf is release r's stage table.
func StagesOf(r schema.Release) *StageTable { return stageTables[r] }

// Release is the release whose table t is.
func (t *StageTable) Release() schema.Release { return t.release }

// Has reports whether the release has stage s.
func (t *StageTable) Has(s Stage) bool { return s < numStages && t.table[s] >= 0 }

// Table is the SB Logical_Flow table_id of stage s in the release, or -1
// when the release lacks it.
func (t *StageTable) Table(s Stage) int {
	if s >= numStages {
		return -1
	}
	return int(t.table[s])
}

// Lookup is the stage at a table of a pipeline of switches or routers.
func (t *StageTable) Lookup(kind DatapathKind, p Pipeline, table int) (Stage, bool) {
	s, ok := t.byTable[stageSlot{kind, p, table}]
	return s, ok
}

// Stages returns every stage of the release for the given datapath kind,
// in pipeline and table order.
func (t *StageTable) Stages(kind DatapathKind) []Stage { return t.byKind[kind] }

// tableIn is stage s's table number in release r, for the actions that
// name a table (next(pipeline=..., table=N)).
func tableIn(r schema.Release, s Stage) int { return StagesOf(r).Table(s) }
