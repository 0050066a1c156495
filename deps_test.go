package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// dependencyFloors are the oldest versions of modules linked into zkx
// (through gokrb5, for Kerberos) that carry the fixes of the Go
// vulnerability database's advisories named: go.mod may not go below them.
// govulncheck is the real check, where its database can be reached.
var dependencyFloors = []struct{ module, floor, why string }{
	{"golang.org/x/net", "v0.17.0", "GO-2023-2102 (HTTP/2 rapid reset)"},
	{"golang.org/x/crypto", "v0.31.0", "GO-2024-3321 (ssh: PublicKeyCallback misuse)"},
}

// TestDependencyFloors: go.mod requires each module of dependencyFloors
// at its floor or later.
func TestDependencyFloors(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	required := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(fields) >= 2 && strings.HasPrefix(fields[1], "v") {
			required[fields[0]] = fields[1]
		}
	}
	for _, f := range dependencyFloors {
		have, ok := required[f.module]
		if !ok {
			continue // no longer linked
		}
		if older(have, f.floor) {
			t.Errorf("go.mod requires %s %s, older than %s, which fixes %s", f.module, have, f.floor, f.why)
		}
	}
}

// older reports whether semantic version a is before b (vMAJOR.MINOR.PATCH;
// a pre-release counts as its release).
func older(a, b string) bool {
	parse := func(v string) [3]int {
		var n [3]int
		v, _, _ = strings.Cut(strings.TrimPrefix(v, "v"), "-")
		for i, part := range strings.SplitN(v, ".", 3) {
			n[i], _ = strconv.Atoi(part)
		}
		return n
	}
	x, y := parse(a), parse(b)
	for i := range x {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return false
}
