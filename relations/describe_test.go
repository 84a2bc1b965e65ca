package relations

import (
	"cmp"
	"net/netip"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/ovn-org/libovsdb/model"
)

const (
	lbUUID    = "6c1c0000-0000-4000-8000-000000000001"
	routeUUID = "6c1c0000-0000-4000-8000-000000000002"
	lrUUID    = "6c1c0000-0000-4000-8000-000000000003"
)

// TestRejectionsNameNBRows: the rejections of malformed NB rows name the
// rows by table, name and _uuid, never by a pointer's address.
func TestRejectionsNameNBRows(t *testing.T) {
	c := engine.NewCircuit()
	n := NewNB(c, schema.OVN2303)
	for _, r := range []struct {
		table string
		row   model.Model
	}{
		{nb.LoadBalancerTable, &nb.LoadBalancer{UUID: lbUUID, Name: "lb0", Vips: map[string]string{"not-an-ip": "10.0.0.1"}}},
		{nb.LogicalRouterStaticRouteTable, &nb.LogicalRouterStaticRoute{UUID: routeUUID, IPPrefix: "10.0.0.0/33", Nexthop: "10.0.0.1"}},
		{nb.LogicalRouterTable, &nb.LogicalRouter{UUID: lrUUID, Name: "lr0", StaticRoutes: []string{routeUUID}}},
	} {
		if err := n.Apply(r.table, nil, r.row); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, r := range c.Step() {
		got = append(got, r.Error())
	}
	want := []string{
		`load balancer VIP: {Load_Balancer "lb0" (_uuid ` + lbUUID + `) not-an-ip}: load balancer ` + lbUUID +
			`: VIP "not-an-ip": should be an IP address (or an IP address and a port number with : as a separator): bad IP address "not-an-ip"`,
		`static route: {` + lrUUID + ` Logical_Router_Static_Route (_uuid ` + routeUUID + `)}: static route ` + routeUUID + `: bad 'ip_prefix' 10.0.0.0/33`,
	}
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("rejections (-want +got):\n%s", d)
	}
}

// TestDescribeTuple: NB rows inside unexported fields, embedded structs and
// sorted sequences show as rows; a nil row, a row without a name and a
// Stringer show as %v would.
func TestDescribeTuple(t *testing.T) {
	n := NewNB(engine.NewCircuit(), schema.OVN2303)
	name := "allow-web"
	acl := &nb.ACL{UUID: "a", Name: &name}
	type inner struct{ acl *nb.ACL }
	type tuple struct {
		inner
		Addr  netip.Addr
		Ports engine.Sorted[*nb.LogicalSwitchPort]
		None  *nb.NAT
		Route *nb.LogicalRouterStaticRoute
	}
	ports := engine.SortedOf([]*nb.LogicalSwitchPort{{UUID: "p2", Name: "b"}, {UUID: "p1", Name: "a"}},
		func(a, b *nb.LogicalSwitchPort) int { return cmp.Compare(a.Name, b.Name) })
	got := n.DescribeTuple(tuple{inner{acl}, netip.MustParseAddr("10.0.0.1"), ports, nil, &nb.LogicalRouterStaticRoute{UUID: "r"}})
	want := `{{ACL "allow-web" (_uuid a)} 10.0.0.1 [Logical_Switch_Port "a" (_uuid p1) Logical_Switch_Port "b" (_uuid p2)] <nil> Logical_Router_Static_Route (_uuid r)}`
	if got != want {
		t.Errorf("DescribeTuple:\n got %s\nwant %s", got, want)
	}
}
