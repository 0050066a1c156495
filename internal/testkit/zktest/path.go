package zktest

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
)

// maxPathName bounds the test-name part of a Path.
const maxPathName = 80

// Path returns a unique absolute znode path for this test,
// "/zkt-<sanitised test name>-<random>", not created. Tests sharing a server
// (see Shared) work under their own Path.
func Path(t testing.TB) string {
	t.Helper()
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatalf("zktest: random path suffix: %v", err)
	}
	return "/zkt-" + sanitise(t.Name()) + "-" + hex.EncodeToString(rnd[:])
}

// sanitise keeps letters, digits, '-', '_' and '.' of a test name and turns
// everything else (the '/' of subtests, spaces, ...) into '_'.
func sanitise(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= maxPathName {
			break
		}
	}
	return b.String()
}
