package zkview

import (
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"
)

// ACLSyntax explains what ParseACL reads, for help texts and errors.
const ACLSyntax = "scheme:id:perms[,…] with perms from cdrwa — world:anyone:r, digest:user:HASH:cdrwa (HASH from `zkx digest user:password`), ip:10.0.0.0/8:r, auth::cdrwa (every identity this session authenticated as)"

// ParseACL reads a comma-separated ACL: scheme:id:perms entries, the id
// being everything between the first and the last colon (a digest id is
// user:hash). A digest entry whose hash is not a SHA-1 digest is refused:
// a password there would lock everyone out.
func ParseACL(s string) ([]zk.ACL, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty ACL: want %s", ACLSyntax)
	}
	var out []zk.ACL
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		first, last := strings.IndexByte(entry, ':'), strings.LastIndexByte(entry, ':')
		if first <= 0 || first == last {
			return nil, fmt.Errorf("ACL entry %q: want scheme:id:perms (%s)", entry, ACLSyntax)
		}
		a := zk.ACL{Scheme: entry[:first], ID: entry[first+1 : last]}
		perms, err := ParsePerms(entry[last+1:])
		if err != nil {
			return nil, fmt.Errorf("ACL entry %q: %w", entry, err)
		}
		a.Perms = perms
		switch a.Scheme {
		case "world":
			if a.ID != "anyone" {
				return nil, fmt.Errorf("ACL entry %q: the world scheme has one id, anyone", entry)
			}
		case "auth":
			if a.ID != "" {
				return nil, fmt.Errorf("ACL entry %q: auth takes no id (auth::cdrwa)", entry)
			}
		case "digest":
			user, hash, ok := strings.Cut(a.ID, ":")
			if !ok || user == "" || !isDigestHash(hash) {
				return nil, fmt.Errorf("ACL entry %q: a digest id is user:HASH, the base64 SHA-1 of user:password (zkx digest user:password prints it); a password in its place would lock everyone out", entry)
			}
		case "ip":
			if a.ID == "" {
				return nil, fmt.Errorf("ACL entry %q: ip wants an address or a network, e.g. ip:10.0.0.0/8:r", entry)
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// FormatACLSpec writes an ACL back in ParseACL's syntax.
func FormatACLSpec(acl []zk.ACL) string {
	parts := make([]string, len(acl))
	for i, a := range acl {
		parts[i] = a.Scheme + ":" + a.ID + ":" + aclPerms(a.Perms)
	}
	return strings.Join(parts, ",")
}

// isDigestHash reports whether s is base64 of 20 bytes (a SHA-1).
func isDigestHash(s string) bool {
	b, err := base64.StdEncoding.DecodeString(s)
	return err == nil && len(b) == sha1.Size
}

// ParsePerms reads permissions as FormatACL writes them: letters of
// "cdrwa", "none", or with extra bits as "+0x…".
func ParsePerms(s string) (int32, error) {
	if s == "none" {
		return 0, nil
	}
	letters, extra, hasExtra := strings.Cut(s, "+0x")
	var p int32
	for _, c := range letters {
		switch c {
		case 'c':
			p |= zk.PermCreate
		case 'd':
			p |= zk.PermDelete
		case 'r':
			p |= zk.PermRead
		case 'w':
			p |= zk.PermWrite
		case 'a':
			p |= zk.PermAdmin
		default:
			return 0, fmt.Errorf("permission %q: want letters of cdrwa (create, delete, read, write, admin)", string(c))
		}
	}
	if hasExtra {
		v, err := strconv.ParseUint(extra, 16, 32)
		if err != nil {
			return 0, fmt.Errorf("permission bits %q: %w", extra, err)
		}
		p |= int32(v)
	}
	if letters == "" && !hasExtra {
		return 0, fmt.Errorf("no permissions: want letters of cdrwa, or none")
	}
	return p, nil
}

// PermString spells permissions as zkCli does ("cdrwa").
func PermString(p int32) string { return aclPerms(p) }

// DigestID is the id ZooKeeper's digest scheme gives user:password:
// user:base64(sha1("user:password")).
func DigestID(userPassword string) (string, error) {
	user, _, ok := strings.Cut(userPassword, ":")
	if !ok || user == "" {
		return "", fmt.Errorf("want user:password")
	}
	sum := sha1.Sum([]byte(userPassword))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:]), nil
}

// Identity is one way a session is known to ACLs.
type Identity struct{ Scheme, ID string }

// GrantsAdmin reports whether acl lets one of ids change it again
// (ADMIN); an auth entry grants whatever the session authenticated as,
// and world:anyone everyone. ip entries are not matched (the address the
// server sees is not known here): unsure reports them.
func GrantsAdmin(acl []zk.ACL, ids []Identity) (granted, unsure bool) {
	for _, a := range acl {
		if a.Perms&zk.PermAdmin == 0 {
			continue
		}
		switch {
		case a.Scheme == "world" && a.ID == "anyone", a.Scheme == "auth" && len(ids) > 0:
			return true, false
		case a.Scheme == "ip":
			unsure = true
		}
		for _, id := range ids {
			if id.Scheme == a.Scheme && id.ID == a.ID {
				return true, false
			}
		}
	}
	return false, unsure
}

// Identities are what the client authenticated as, as ACLs name them.
func (c *Client) Identities() []Identity {
	var out []Identity
	for _, a := range c.dialedOptions().auth {
		if a.scheme == "digest" {
			if id, err := DigestID(string(a.creds)); err == nil {
				out = append(out, Identity{Scheme: "digest", ID: id})
			}
			continue
		}
		out = append(out, Identity{Scheme: a.scheme, ID: string(a.creds)})
	}
	return out
}
