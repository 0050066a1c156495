package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// setAdmin is :admin: it sets the AdminServers the servers' tables are
// read from (:admin URL[,URL…]), the port one is looked for on every
// member (:admin port N), clears both (:admin off), or says what they are
// (:admin). It returns the status line's message, and whether the
// AdminServers changed (the pages then ask the servers again).
func setAdmin(shared *sharedState, arg string) (msg statusMsg, changed bool) {
	o := shared.introspectOptions()
	switch fields := strings.Fields(strings.ReplaceAll(arg, ",", " ")); {
	case len(fields) == 0:
		urls := "none given"
		if len(o.AdminURLs) > 0 {
			shown := make([]string, len(o.AdminURLs))
			for i, u := range o.AdminURLs {
				shown[i] = display.URL(u)
			}
			urls = strings.Join(shown, ", ")
		}
		port := "not looked for"
		if o.AdminPort > 0 {
			port = fmt.Sprintf("looked for on port %d of a member that refuses the four-letter words", o.AdminPort)
		}
		return statusMsg{text: "AdminServers: " + urls + "; " + port + " (:admin URL[,URL…] or :admin port N sets them)"}, false
	case len(fields) == 1 && fields[0] == "off":
		shared.setAdmin(nil, 0)
		return statusMsg{text: "no AdminServers: the servers are asked with four-letter words only"}, true
	case fields[0] == "port":
		if len(fields) != 2 {
			return statusMsg{text: ":admin port N: one port", err: true}, false
		}
		port, err := strconv.Atoi(fields[1])
		if err != nil || port <= 0 || port > 65535 {
			return statusMsg{text: fmt.Sprintf(":admin port %s: not a port", display.Line(fields[1])), err: true}, false
		}
		shared.setAdmin(o.AdminURLs, port)
		return statusMsg{text: fmt.Sprintf("AdminServers looked for on port %d of every member that refuses the four-letter words; asking again", port)}, true
	default:
		urls := make([]string, 0, len(fields))
		for _, f := range fields {
			u, err := introspect.AdminBase(f)
			if err != nil {
				return statusMsg{text: err.Error(), err: true}, false
			}
			urls = append(urls, u)
		}
		shared.setAdmin(urls, o.AdminPort)
		return statusMsg{text: "AdminServers " + strings.Join(urls, ", ") + "; asking the servers again"}, true
	}
}
