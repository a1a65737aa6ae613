package places

import (
	"path/filepath"
	"runtime"
	"testing"
)

func TestDefaultPlacesFollowXDG(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the XDG places are Linux's")
	}
	r := t.TempDir()
	home := filepath.Join(r, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(r, "config"))
	config := filepath.Join(r, "config", appDirName)
	for _, c := range []struct {
		name, dataHome, stateHome string
		want                      Places
	}{
		{"set", filepath.Join(r, "data"), filepath.Join(r, "state"),
			Places{Data: filepath.Join(r, "data", appDirName), Config: config, Log: filepath.Join(r, "state", appDirName)}},
		// Unset or relative XDG variables fall back to the home directory's defaults.
		{"unset or relative", "", "relative/state",
			Places{Data: filepath.Join(home, ".local", "share", appDirName), Config: config,
				Log: filepath.Join(home, ".local", "state", appDirName)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("XDG_DATA_HOME", c.dataHome)
			t.Setenv("XDG_STATE_HOME", c.stateHome)
			p, err := Default()
			if err != nil {
				t.Fatal(err)
			}
			if p != c.want {
				t.Errorf("Default = %+v, want %+v", p, c.want)
			}
		})
	}
}
