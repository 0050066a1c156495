package zkserver

import (
	"crypto/sha1"
	"encoding/base64"
	"net"
	"strconv"
	"strings"

	"github.com/zkx-dev/zkx/internal/jute"
)

// DigestID returns the ACL id ZooKeeper's digest scheme derives from
// "user:password": user:base64(sha1(user:password)).
func DigestID(userPassword string) string {
	user, _, _ := strings.Cut(userPassword, ":")
	sum := sha1.Sum([]byte(userPassword))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

// javaSplitCount counts the fields of Java's String.split(sep), which drops
// trailing empty fields.
func javaSplitCount(s, sep string) int {
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return len(parts)
}

// validACLID reports whether an id is well formed for its scheme, as the
// server's authentication providers decide it.
func validACLID(id jute.Id) bool {
	switch id.Scheme {
	case "world":
		return id.ID == "anyone"
	case "digest":
		return javaSplitCount(id.ID, ":") == 2
	case "ip":
		_, _, ok := parseIPACL(id.ID)
		return ok
	case "sasl":
		return id.ID != ""
	default:
		return false
	}
}

// fixupACL validates an ACL for create or setACL and expands the "auth"
// scheme into the connection's authenticated ids, as PrepRequestProcessor does.
func fixupACL(acl []jute.ACL, auth []jute.Id) ([]jute.ACL, jute.Code) {
	var uniq []jute.ACL
	for _, a := range acl {
		dup := false
		for _, u := range uniq {
			if u == a {
				dup = true
				break
			}
		}
		if !dup {
			uniq = append(uniq, a)
		}
	}
	if len(uniq) == 0 {
		return nil, jute.ErrInvalidACL
	}
	out := make([]jute.ACL, 0, len(uniq))
	for _, a := range uniq {
		switch {
		case a.ID.Scheme == "world" && a.ID.ID == "anyone":
			out = append(out, a)
		case a.ID.Scheme == "auth":
			expanded := false
			for _, id := range auth {
				if id.Scheme == "digest" || id.Scheme == "sasl" { // the schemes whose providers say "authenticated"
					out = append(out, jute.ACL{Perms: a.Perms, ID: id})
					expanded = true
				}
			}
			if !expanded {
				return nil, jute.ErrInvalidACL
			}
		case validACLID(a.ID):
			out = append(out, a)
		default:
			return nil, jute.ErrInvalidACL
		}
	}
	return out, jute.ErrOK
}

// checkACL returns ErrNoAuth unless one entry of acl grants one of the perm
// bits to one of the connection's ids (ZooKeeperServer.checkACL).
func checkACL(acl []jute.ACL, perm int32, auth []jute.Id) jute.Code {
	if len(acl) == 0 {
		return jute.ErrOK
	}
	for _, id := range auth {
		if id.Scheme == "super" {
			return jute.ErrOK
		}
	}
	for _, a := range acl {
		if a.Perms&perm == 0 {
			continue
		}
		if a.ID.Scheme == "world" && a.ID.ID == "anyone" {
			return jute.ErrOK
		}
		for _, id := range auth {
			if id.Scheme != a.ID.Scheme {
				continue
			}
			switch id.Scheme {
			case "digest", "sasl":
				if id.ID == a.ID.ID {
					return jute.ErrOK
				}
			case "ip":
				if ipMatches(id.ID, a.ID.ID) {
					return jute.ErrOK
				}
			}
		}
	}
	return jute.ErrNoAuth
}

// parseIPACL parses "addr" or "addr/bits".
func parseIPACL(expr string) (net.IP, int, bool) {
	addr, bitsText, hasBits := strings.Cut(expr, "/")
	ip := net.ParseIP(addr)
	if ip == nil {
		return nil, 0, false
	}
	if v4 := ip.To4(); v4 != nil && !strings.Contains(addr, ":") {
		ip = v4
	}
	bits := len(ip) * 8
	if hasBits {
		n, err := strconv.Atoi(bitsText)
		if err != nil || n < 0 || n > bits {
			return nil, 0, false
		}
		bits = n
	}
	return ip, bits, true
}

func ipMatches(clientIP, expr string) bool {
	want, bits, ok := parseIPACL(expr)
	if !ok {
		return false
	}
	got, _, ok := parseIPACL(clientIP)
	if !ok || len(got) != len(want) {
		return false
	}
	mask := net.CIDRMask(bits, len(want)*8)
	return got.Mask(mask).Equal(want.Mask(mask))
}

// javaHostAddress formats an IP the way Java's getHostAddress does: IPv6
// without zero compression.
func javaHostAddress(ip net.IP) string {
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	parts := make([]string, 8)
	for i := 0; i < 8; i++ {
		parts[i] = strconv.FormatUint(uint64(ip[2*i])<<8|uint64(ip[2*i+1]), 16)
	}
	return strings.Join(parts, ":")
}

// maskDigests hides digest hashes from a reader without ADMIN on the node.
func maskDigests(acl []jute.ACL) []jute.ACL {
	out := make([]jute.ACL, len(acl))
	for i, a := range acl {
		out[i] = a
		if a.ID.Scheme == "digest" {
			user, _, _ := strings.Cut(a.ID.ID, ":")
			out[i].ID.ID = user + ":x"
		}
	}
	return out
}
