package recognize

import (
	"context"
	"fmt"
	"path"
)

// Curator's service discovery (curator-x-discovery ServiceDiscoveryImpl
// .java, JsonInstanceSerializer): <base>/<service>/<instance id>, ephemeral
// for DYNAMIC instances, holding the instance as JSON ({"name", "id",
// "address", "port", "sslPort", "payload", "registrationTimeUTC",
// "serviceType", "uriSpec", "enabled"}). Ids are random UUIDs by default;
// a directory of them is told from a double barrier by its first member's
// data.
const discoverySystemName = "curator-discovery"

var discoverySystem = systemRecognizer{
	name: discoverySystemName,
	candidate: func(d listedDir) bool {
		if len(d.names) == 0 {
			return false
		}
		for _, n := range d.names {
			if n.Kind != kindUUIDMember {
				return false
			}
		}
		return true
	},
	recognize: func(rc *recognizer, ctx context.Context, d listedDir) (Recipe, bool, error) {
		data, stat, err := rc.get(ctx, path.Join(d.path, d.names[0].Name))
		if err != nil || stat == nil {
			return nil, err != nil, err
		}
		if _, ok := discoveryInstance(data); !ok {
			return nil, false, nil
		}
		var disabled []string
		g, err := rc.group(ctx, d, discoverySystemName, SystemTag{System: discoverySystemName, Role: "service-instances", SystemRoot: path.Dir(d.path)},
			func(name string, data []byte) string {
				s, ok := discoveryInstance(data)
				if ok && s.disabled {
					disabled = append(disabled, name)
				}
				return s.text
			})
		if err != nil {
			return nil, true, err
		}
		if len(disabled) > 0 {
			g.Warnings = append(g.Warnings, fmt.Sprintf("%d instances disabled: %s", len(disabled), listShort(disabled)))
		}
		return g, true, nil
	},
}

type discoveryText struct {
	text     string
	disabled bool
}

// discoveryInstance shows an instance: "search-api 10.0.7.1:8080".
func discoveryInstance(data []byte) (discoveryText, bool) {
	m := jsonObject(data)
	if m == nil || jsonString(m, "name") == "" || m["registrationTimeUTC"] == nil || m["serviceType"] == nil {
		return discoveryText{}, false
	}
	addr := jsonString(m, "address")
	if port, ok := jsonInt(m, "port"); ok {
		addr = fmt.Sprintf("%s:%d", addr, port)
	}
	t := discoveryText{text: jsonString(m, "name") + " " + addr}
	if en, ok := m["enabled"].(bool); ok && !en {
		t.disabled = true
		t.text += " (disabled)"
	}
	return t, true
}
