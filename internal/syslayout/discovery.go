package syslayout

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
)

// ServiceInstance is a Curator ServiceDiscovery instance as
// JsonInstanceSerializer writes it (curator-x-discovery ServiceInstance
// .java's properties).
type ServiceInstance struct {
	Name                string          `json:"name"`
	ID                  string          `json:"id"`
	Address             string          `json:"address"`
	Port                int             `json:"port"`
	SSLPort             *int            `json:"sslPort"`
	Payload             json.RawMessage `json:"payload"`
	RegistrationTimeUTC int64           `json:"registrationTimeUTC"`
	ServiceType         string          `json:"serviceType"`
	URISpec             *URISpec        `json:"uriSpec"`
	Enabled             bool            `json:"enabled"`
}

// URISpec is Curator's UriSpec.
type URISpec struct {
	Parts []URIPart `json:"parts"`
}

// URIPart is one part of a UriSpec.
type URIPart struct {
	Value    string `json:"value"`
	Variable bool   `json:"variable"`
}

// NewServiceInstance is a DYNAMIC (ephemeral) instance with Curator's
// default "{scheme}://{address}:{port}" spec.
func NewServiceInstance(name, id, address string, port int, registered int64) ServiceInstance {
	return ServiceInstance{Name: name, ID: id, Address: address, Port: port, RegistrationTimeUTC: registered,
		ServiceType: "DYNAMIC", Enabled: true, Payload: json.RawMessage("null"),
		URISpec: &URISpec{Parts: []URIPart{{"scheme", true}, {"://", false}, {"address", true}, {":", false}, {"port", true}}}}
}

// InstanceID is a UUID-shaped instance id (Curator's default is a random
// UUID), made from its parts so that a layout is the same every time.
func InstanceID(a, b int, c int64) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", 0x5eed0000+a, b&0xffff, a&0xfff, b%4096, c&0xffffffffffff)
}

// Discovery registers instances of two services under root (the
// ServiceDiscovery's base path) as ServiceDiscoveryImpl does: <base>/<name>/
// <id>, ephemeral, each in its instance's session.
func (l *Layout) Discovery(ctx context.Context, root string) error {
	for i, svc := range []struct {
		name  string
		port  int
		addrs []string
	}{{"search-api", 8080, []string{"10.0.7.1", "10.0.7.2"}}, {"billing", 8443, []string{"10.0.8.1"}}} {
		for j, addr := range svc.addrs {
			id := InstanceID(i*10+j, svc.port, l.Started)
			data, err := json.Marshal(NewServiceInstance(svc.name, id, addr, svc.port, l.Started))
			if err != nil {
				return err
			}
			if _, err := l.ephemeral(ctx, svc.name+"-"+addr, path.Join(root, svc.name, id), data, false); err != nil {
				return err
			}
		}
	}
	return nil
}
