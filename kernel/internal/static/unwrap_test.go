package static

import "testing"

func TestIsShellLauncherIsTheTable(t *testing.T) {
	for name := range shellLauncherOptions {
		if !isShellLauncher(name) {
			t.Errorf("isShellLauncher(%q) is false", name)
		}
	}
	for _, name := range []string{"echo", "env", "timeout", ""} {
		if isShellLauncher(name) {
			t.Errorf("isShellLauncher(%q) is true", name)
		}
	}
}
