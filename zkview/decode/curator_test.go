package decode

import (
	"bytes"
	"testing"

	"github.com/zkx-dev/zkx/internal/curatoritems"
)

// TestCuratorItemSetEncoding: the item sets Curator 5.4 itself wrote
// (testdata/CuratorFixtures.java: DistributedQueue.put and putMulti),
// read into their items and written again by curatoritems.Encode, come
// out byte for byte as Curator wrote them: what the recipes' CuratorQueue
// puts is what a Curator producer puts.
func TestCuratorItemSetEncoding(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"curator-queue-one.bin", "curator-queue-multi.bin", "curator-queue-empty.bin"} {
		written := readDecodeFixture(t, name)
		items, err := curatoritems.Decode(written)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if again := curatoritems.Encode(items); !bytes.Equal(again, written) {
			t.Errorf("%s: %d items encoded as\n%x\nCurator wrote\n%x", name, len(items), again, written)
		}
	}
}
