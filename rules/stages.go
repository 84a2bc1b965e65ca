package rules

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/northlog/northlog/relations"
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

func (k DatapathKind) String() string {
	if k == Router {
		return "router"
	}
	return "switch"
}

// Stage is one stage of a logical switch or router pipeline, as ovn-northd
// names it (northd.c's PIPELINE_STAGES): its identity, which every release
// that has the stage shares. Its table number is not a property of the
// stage but of a release's StageTable, which lists each pipeline's stages
// in order; a stage absent from a release's table is not valid there.
// Stages are compared and stored by value; the constants below are in an
// order that agrees with the table order of every release, so comparing
// built-in stages compares tables. An embedding program declares stages of
// its own with NewStage; they come after every built-in one in value order,
// and a StageTable (With) says where they sit.
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

// stages names every built-in stage; the only place their names live.
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

// pipelineLimits are how many logical tables ovn-controller runs in each
// pipeline, per release: it maps logical table N of a pipeline to
// OpenFlow table FIRST+N, and the next fixed OpenFlow table bounds the
// range (controller/lflow.h), as the "next" action's bound does
// (lib/ovn-util.h LOG_PIPELINE_LEN, used by lib/actions.c to refuse
// next(table=N) beyond it). 23.03: ingress OFTABLE_LOG_INGRESS_PIPELINE 8
// to OFTABLE_OUTPUT_LARGE_PKT_DETECT 37, 29 tables (= LOG_PIPELINE_LEN);
// egress OFTABLE_LOG_EGRESS_PIPELINE 42 to OFTABLE_SAVE_INPORT 64, 22
// tables (LOG_PIPELINE_LEN 29 lets a next() name more, whose OpenFlow
// tables would be SAVE_INPORT's). 26.03: ingress 8 to 42, 34 tables
// (LOG_PIPELINE_INGRESS_LEN); egress 48 to 64, 16 tables
// (LOG_PIPELINE_EGRESS_LEN). The pipelines of switches and routers share
// the range.
var pipelineLimits = map[schema.Release][2]int{
	schema.OVN2303: {Ingress: 29, Egress: 22},
	schema.OVN2603: {Ingress: 34, Egress: 16},
}

// customStages are the stages embedding programs declared (NewStage),
// after the built-in ones: custom stage s is customStages[s-numStages].
// Declarations copy the slice, so that the Stage methods read it without
// a lock.
var (
	customStages   atomic.Pointer[[]stageInfo]
	customStagesMu sync.Mutex
)

// NewStage declares an embedding program's own stage of the pipeline p of
// switches or routers, named name (the SB external_ids:stage-name of its
// flows). It is a stage of no release until a StageTable places it
// (StageTable.With). Declare each stage once, as a package variable:
//
//	var LSInAfterLB = rules.NewStage(rules.Switch, rules.Ingress, "ls_in_after_lb")
//
// NewStage panics, as a duplicate flag does, when the name is a built-in
// or declared stage's, or when 255 stages exist.
func NewStage(kind DatapathKind, p Pipeline, name string) Stage {
	customStagesMu.Lock()
	defer customStagesMu.Unlock()
	var declared []stageInfo
	if c := customStages.Load(); c != nil {
		declared = *c
	}
	if _, taken := StageNamed(name); taken {
		panic(fmt.Sprintf("rules: NewStage: a stage named %q exists", name))
	}
	s := int(numStages) + len(declared)
	if s > int(^Stage(0)) {
		panic(fmt.Sprintf("rules: NewStage %q: no Stage value left", name))
	}
	declared = append(append([]stageInfo(nil), declared...), stageInfo{kind, p, name})
	customStages.Store(&declared)
	return Stage(s)
}

// StageNamed is the built-in or declared stage named name.
func StageNamed(name string) (Stage, bool) {
	for s := range numStages {
		if stages[s].name == name {
			return s, true
		}
	}
	if c := customStages.Load(); c != nil {
		for i, info := range *c {
			if info.name == name {
				return numStages + Stage(i), true
			}
		}
	}
	return 0, false
}

// info is what a stage is; the zero stageInfo for a value no stage has.
func (s Stage) info() stageInfo {
	if s < numStages {
		return stages[s]
	}
	if c := customStages.Load(); c != nil && int(s-numStages) < len(*c) {
		return (*c)[s-numStages]
	}
	return stageInfo{}
}

// Builtin reports whether s is one of ovn-northd's stages rather than one
// an embedding program declared (NewStage).
func (s Stage) Builtin() bool { return s < numStages }

// Kind says whether the stage belongs to switches or routers.
func (s Stage) Kind() DatapathKind { return s.info().kind }

// Pipeline is the SB Logical_Flow pipeline of the stage.
func (s Stage) Pipeline() Pipeline { return s.info().pipeline }

// Name is the stage name northd writes in external_ids:stage-name.
func (s Stage) Name() string { return s.info().name }

func (s Stage) String() string {
	if name := s.Name(); name != "" {
		return name
	}
	return fmt.Sprintf("Stage(%d)", uint8(s))
}

// StageTable is one release's stage table, with an embedding program's
// own stages where it placed them (With): which stages it has and their
// table numbers.
type StageTable struct {
	release   schema.Release
	pipelines pipelines
	table     [int(^Stage(0)) + 1]int16 // -1: not in the table
	byTable   map[stageSlot]Stage
	byKind    [2][]Stage
}

// stageSlot is where a stage sits in a release: kind, pipeline, table.
type stageSlot struct {
	kind     DatapathKind
	pipeline Pipeline
	table    int
}

// newStageTable numbers the stages of release r's pipelines p.
func newStageTable(r schema.Release, p pipelines) *StageTable {
	t := &StageTable{release: r, pipelines: p, byTable: map[stageSlot]Stage{}}
	for s := range t.table {
		t.table[s] = -1
	}
	for _, pipeline := range p.all() {
		for i, s := range *pipeline {
			t.table[s] = int16(i)
			t.byTable[stageSlot{s.Kind(), s.Pipeline(), i}] = s
			t.byKind[s.Kind()] = append(t.byKind[s.Kind()], s)
		}
	}
	return t
}

// all are the four pipelines, switches' then routers', ingress first.
func (p *pipelines) all() [4]*[]Stage {
	return [4]*[]Stage{&p.switchIn, &p.switchOut, &p.routerIn, &p.routerOut}
}

// of is the pipeline of the stages of kind and pipeline.
func (p *pipelines) of(kind DatapathKind, pl Pipeline) *[]Stage {
	return p.all()[2*int(kind)+int(pl)]
}

// stageTables are the releases' StageTables, built from releaseStages.
var stageTables = func() map[schema.Release]*StageTable {
	out := map[schema.Release]*StageTable{}
	for r, p := range releaseStages {
		out[r] = newStageTable(r, p)
	}
	return out
}()

// StagesOf is release r's stage table.
func StagesOf(r schema.Release) *StageTable { return stageTables[r] }

// StagesFor is the stage table of the program whose NB nb is (NewWith):
// its release's, with the program's own stages. Rules number the tables
// their actions name (next(pipeline=..., table=N)) through it, so that a
// stage placed before them renumbers those too.
func StagesFor(nb *relations.NB) *StageTable {
	if t, ok := nb.Stages.(*StageTable); ok {
		return t
	}
	return StagesOf(nb.Release)
}

// Placement puts an embedding program's stage next to another stage of
// the same pipeline (Before, After; StageTable.With).
type Placement struct {
	stage, anchor Stage
	after         bool
}

// Before places stage s just before stage anchor.
func Before(anchor, s Stage) Placement { return Placement{stage: s, anchor: anchor} }

// After places stage s just after stage anchor.
func After(anchor, s Stage) Placement { return Placement{stage: s, anchor: anchor, after: true} }

// With is t with the embedding program's stages placed, in order (a
// placement may name a stage an earlier one placed); the stages after
// each renumber. It refuses a built-in stage, a stage placed twice, an
// anchor the table lacks or of another pipeline, and a stage that would
// make its pipeline longer than ovn-controller of t's release runs
// (pipelineLimits: 29 ingress and 22 egress tables in 23.03, 34 and 16 in
// 26.03, the switch pipelines of which are full).
func (t *StageTable) With(ps ...Placement) (*StageTable, error) {
	p := t.pipelines
	for _, pl := range p.all() {
		*pl = append([]Stage(nil), *pl...)
	}
	placed := newStageTable(t.release, p)
	for _, x := range ps {
		s, anchor := x.stage, x.anchor
		switch {
		case s.Builtin() || s.Name() == "":
			return nil, fmt.Errorf("rules: placing %s: only a stage declared with NewStage can be placed", s)
		case placed.Has(s):
			return nil, fmt.Errorf("rules: placing %s: it is in the table already", s)
		case !placed.Has(anchor):
			return nil, fmt.Errorf("rules: placing %s next to %s: %s has no stage %s", s, anchor, t.release, anchor)
		case anchor.Kind() != s.Kind() || anchor.Pipeline() != s.Pipeline():
			return nil, fmt.Errorf("rules: placing %s next to %s: they are stages of different pipelines", s, anchor)
		}
		pipeline := p.of(s.Kind(), s.Pipeline())
		if limit := pipelineLimits[t.release][s.Pipeline()]; len(*pipeline) >= limit {
			return nil, fmt.Errorf("rules: placing %s: %s's %s %s pipeline has %d stages, and ovn-controller %s runs at most %d logical tables in an %s pipeline",
				s, t.release, s.Kind(), s.Pipeline(), len(*pipeline), t.release, limit, s.Pipeline())
		}
		i := placed.Table(anchor)
		if x.after {
			i++
		}
		*pipeline = append((*pipeline)[:i], append([]Stage{s}, (*pipeline)[i:]...)...)
		placed = newStageTable(t.release, p)
	}
	return placed, nil
}

// Release is the release whose table t is.
func (t *StageTable) Release() schema.Release { return t.release }

// Has reports whether the table has stage s.
func (t *StageTable) Has(s Stage) bool { return t.table[s] >= 0 }

// Table is the SB Logical_Flow table_id of stage s, or -1 when the table
// lacks it.
func (t *StageTable) Table(s Stage) int { return int(t.table[s]) }

// Lookup is the stage at a table of a pipeline of switches or routers.
func (t *StageTable) Lookup(kind DatapathKind, p Pipeline, table int) (Stage, bool) {
	s, ok := t.byTable[stageSlot{kind, p, table}]
	return s, ok
}

// Stages returns every stage of the table for the given datapath kind, in
// pipeline and table order.
func (t *StageTable) Stages(kind DatapathKind) []Stage { return t.byKind[kind] }

// tableIn is stage s's table number in the program whose NB nb is, for
// the actions that name a table (next(pipeline=..., table=N)).
func tableIn(nb *relations.NB, s Stage) int { return StagesFor(nb).Table(s) }
