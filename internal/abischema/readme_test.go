package abischema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

func abiReadme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "abi", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// abi/README's host-function table has a row for every host function a
// plugin can import, naming the grant capability gives it and the request
// and response types the host decodes and encodes.
func TestABIReadmeTableNamesEveryHostFunction(t *testing.T) {
	rows := map[string][]string{}
	_, table, ok := strings.Cut(abiReadme(t), "| import | grant | request → response |")
	if !ok {
		t.Fatal("abi/README.md has no host-function table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`ww_") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		rows[name] = []string{strings.TrimSpace(cells[2]), cells[3]}
	}
	typeName := func(v any) string {
		if n := reflect.TypeOf(v).Name(); n != "Empty" {
			return "`" + n + "`"
		}
		return "`{}`"
	}
	for _, hf := range capability.HostFuncs() {
		name, grant := hf[0], "`"+hf[1]+"`"
		if hf[1] == "" {
			grant = "none"
		}
		row, ok := rows[name]
		if !ok {
			t.Errorf("abi/README.md's host-function table has no row for %s", name)
			continue
		}
		if row[0] != grant {
			t.Errorf("abi/README.md: %s needs %s, the table says %s", name, grant, row[0])
		}
		if f, ok := HostFunctions()[name]; ok {
			if want := typeName(f.Request) + " → " + typeName(f.Response); !strings.Contains(row[1], want) {
				t.Errorf("abi/README.md: %s is %s, the table says %s", name, want, row[1])
			}
		}
		delete(rows, name)
	}
	for name := range rows {
		t.Errorf("abi/README.md's table names %s, which no host function is", name)
	}
}

// Every file or folder abi/README.md names exists (relative to abi/, to
// its schema/hostfuncs/ for a schema file, or to the repository).
func TestABIReadmePathsExist(t *testing.T) {
	root := wasmbuild.Root()
	pathLike := regexp.MustCompile("`([A-Za-z0-9_./-]+(?:\\.(?:go|md|json|ts|toml)|/))`")
	n := 0
	for _, m := range pathLike.FindAllStringSubmatch(abiReadme(t), -1) {
		p := m[1]
		if strings.Contains(p, "NAME") {
			continue // a pattern, not a file
		}
		n++
		found := false
		for _, base := range []string{filepath.Join(root, "abi"), filepath.Join(root, "abi", "schema"), filepath.Join(root, "abi", "schema", "hostfuncs"), root} {
			if _, err := os.Stat(filepath.Join(base, p)); err == nil {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("abi/README.md names %s, which does not exist", p)
		}
	}
	if n < 8 {
		t.Fatalf("only %d paths found in abi/README.md: the pattern is broken", n)
	}
}

// The bot-wall example in abi/README.md ("Naming the vendor") is what
// abi.BotWall answers for it (ExampleBotWall prints the same), and it is a
// valid error answer naming its vendor and kind.
func TestABIReadmeBotWallExample(t *testing.T) {
	_, rest, ok := strings.Cut(abiReadme(t), "<!-- botwall -->\n```json\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("abi/README.md has no bot-wall example")
	}
	e := abi.BotWall("DataDome", abi.WallCaptcha, &abi.Page{URL: "https://shop.example/", Status: 403}, "header x-datadome: protected",
		"shop.example is showing a bot wall (DataDome captcha) instead of the page: it was not read. A person can pass it: ask for a takeover, or use another source.")
	want, _ := json.MarshalIndent(map[string]any{"error": e}, "", "  ")
	if strings.TrimSpace(block) != string(want) {
		t.Fatalf("abi/README.md's example:\n%s\nabi.BotWall answers:\n%s", block, want)
	}
	var doc struct{ Error json.RawMessage }
	if err := json.Unmarshal([]byte(block), &doc); err != nil {
		t.Fatal(err)
	}
	if err := Validate("hostfuncs/error.schema.json", doc.Error); err != nil {
		t.Fatalf("the example is not a valid error answer: %v", err)
	}
}
