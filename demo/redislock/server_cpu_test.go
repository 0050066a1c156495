package redislock

import (
	"testing"
	"time"
)

func TestInfoCPU(t *testing.T) {
	t.Parallel()
	info := "# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:0.500000\r\nused_cpu_sys_children:9.0\r\n"
	if got := infoCPU(info); got != 1750*time.Millisecond {
		t.Errorf("infoCPU = %v, want 1.75s", got)
	}
	if got := infoCPU("# CPU\r\nused_cpu_sys:1.0\r\n"); got != -1 {
		t.Errorf("infoCPU without used_cpu_user = %v, want -1", got)
	}
}
