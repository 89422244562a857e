package host

import (
	"reflect"
	"strings"
	"testing"
)

// Every table of Config beside the kernel's own is a Section that runs
// the lifecycle at load: a table added without one (decoded some other
// way, or validated by the kernel on its behalf) fails here.
func TestEverySectionHasALifecycle(t *testing.T) {
	kernel := map[string]bool{"host": true, "plugins": true, "personalities": true}
	var c Config
	listed := map[uintptr]bool{}
	for _, s := range c.sections() {
		listed[reflect.ValueOf(s).Pointer()] = true
	}
	v := reflect.ValueOf(&c).Elem()
	n := 0
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" || kernel[name] {
			continue
		}
		n++
		p := v.Field(i).Addr()
		if _, ok := p.Interface().(Section); !ok {
			t.Errorf("[%s] (%s) is no Section: give it Validate (and Provision if it takes paths)", name, f.Type)
			continue
		}
		if !listed[p.Pointer()] {
			t.Errorf("[%s] is not in Config.sections(): its lifecycle would never run", name)
		}
	}
	if n != len(c.sections()) {
		t.Errorf("%d service tables in Config, %d sections listed", n, len(c.sections()))
	}
}

// A section's paths are taken from the config's folder once, at load.
func TestSectionsProvisionPaths(t *testing.T) {
	dir := t.TempDir()
	cfg, err := ParseConfig("[browser]\nprofiles_dir = \"profiles\"\n[vault]\nfile = \"v.age\"\n", "t.toml", dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := dir + "/profiles"; cfg.Browser.ProfilesDir != want {
		t.Errorf("browser.profiles_dir = %q, want %q", cfg.Browser.ProfilesDir, want)
	}
	if want := dir + "/v.age"; cfg.Vault.File != want {
		t.Errorf("vault.file = %q, want %q", cfg.Vault.File, want)
	}
}
