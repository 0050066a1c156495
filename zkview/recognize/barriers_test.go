package recognize

import "testing"

func recAsBarrier(t *testing.T, v Recipe) *Barrier {
	t.Helper()
	b, ok := v.(*Barrier)
	if !ok {
		t.Fatalf("recognised %T %+v, want a *Barrier", v, v)
	}
	return b
}

func TestRecognizeBarriers(t *testing.T) {
	t.Parallel()
	t.Run("DistributedBarrier", func(t *testing.T) {
		f := newRecFake().add("/app/deploy-barrier", "10.0.0.5").add("/app/zkx-barrier", "web-1 12").
			add("/app/other", "").add("/app/eph-barrier", "", ephemeralOf(1))
		b := recAsBarrier(t, recognizeT(t, f, "/app/deploy-barrier", Options{}))
		if b.Kind != "barrier" || b.Format != "curator" || b.Path != "/app/deploy-barrier" || b.Warnings == nil {
			t.Errorf("barrier %+v", b)
		}
		if b := recAsBarrier(t, recognizeT(t, f, "/app/zkx-barrier", Options{})); b.Format != "zkx" {
			t.Errorf("zkx barrier %+v", b)
		}
		for _, p := range []string{"/app/other", "/app/eph-barrier"} {
			if v := recognizeT(t, f, p, Options{}); v != nil {
				t.Errorf("%s recognised as %+v", p, v)
			}
		}
	})
	t.Run("curator double barrier entering", func(t *testing.T) {
		f := newRecFake().
			add("/db/"+testUUID2, "", ephemeralOf(2)).
			add("/db/"+testUUID, "", ephemeralOf(1))
		tables := fixedTables{watches: map[int64]map[string]bool{1: {"/db/ready": true}, 2: {}}, connected: map[int64]bool{2: false}}
		b := recAsBarrier(t, recognizeT(t, f, "/db", Options{Tables: tables}))
		if b.Kind != "double-barrier" || b.Format != "curator" || b.Ready {
			t.Errorf("barrier %+v", b)
		}
		recWantNodes(t, "participants", b.Participants, testUUID+">ready", testUUID2+">ready")
		if b.Participants[0].Watch != "observed" {
			t.Errorf("participant %+v", b.Participants[0])
		}
		// A session without a connection has no watches anywhere: that it
		// has none on ready says nothing more than that it is gone.
		recWantWarnings(t, b.Warnings, "participant session 0x2 has no live connection")
	})
	t.Run("kazoo double barrier ready", func(t *testing.T) {
		f := newRecFake().
			add("/db/"+testHex, "host-1", ephemeralOf(1)).
			add("/db/"+testHex2, "host-2", ephemeralOf(2)).
			add("/db/ready", "")
		b := recAsBarrier(t, recognizeT(t, f, "/db", Options{}))
		if b.Kind != "double-barrier" || b.Format != "kazoo" || !b.Ready {
			t.Errorf("barrier %+v", b)
		}
		recWantNodes(t, "participants", b.Participants, testHex2, testHex)
		recWantWarnings(t, b.Warnings)
	})
	t.Run("ready alone", func(t *testing.T) {
		f := newRecFake().add("/db/ready", "")
		b := recAsBarrier(t, recognizeT(t, f, "/db", Options{}))
		if !b.Ready || len(b.Participants) != 0 || b.Participants == nil {
			t.Errorf("barrier %+v", b)
		}
	})
	t.Run("service discovery is not a barrier", func(t *testing.T) {
		f := newRecFake().
			add("/services/web/"+testUUID, `{"name":"web","id":"`+testUUID+`"}`, ephemeralOf(1)).
			add("/services/web/"+testUUID2, `{"name":"web","id":"`+testUUID2+`"}`, ephemeralOf(2))
		if v := recognizeT(t, f, "/services/web", Options{}); v != nil {
			t.Errorf("service instances recognised as %+v", v)
		}
	})
}
