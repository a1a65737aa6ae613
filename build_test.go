package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The product (the window build, as make builds it) links no test support:
// synthetic data and benchmark code live in test files and modeltest.
func TestProductBuildHasNoTestSupport(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-tags", "desktop,production,webkit2_41", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasSuffix(pkg, "test") && strings.HasPrefix(pkg, "checkpoint-explorer/") || strings.Contains(pkg, "/testenv/") {
			t.Errorf("the product build depends on %s", pkg)
		}
	}
}
