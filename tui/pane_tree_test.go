package tui

import (
	"slices"
	"testing"
)

func TestInSequenceOrder(t *testing.T) {
	t.Parallel()
	in := []string{
		"_c_5b19a8-lock-0000000002", "_c_7b1119-lock-0000000001", "zz-not-a-contender",
		"_c_a72d18-lock-0000000010", "aa-other", "f00d__lock__0000000003",
	}
	want := []string{
		"_c_7b1119-lock-0000000001", "_c_5b19a8-lock-0000000002", "f00d__lock__0000000003",
		"_c_a72d18-lock-0000000010", "aa-other", "zz-not-a-contender",
	}
	if got := inSequenceOrder(in); !slices.Equal(got, want) {
		t.Errorf("inSequenceOrder:\n got %q\nwant %q", got, want)
	}
	if in[0] != "_c_5b19a8-lock-0000000002" {
		t.Error("inSequenceOrder changed its argument")
	}
}
