package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// browserRooms are the fenced rooms of hostfuncs/browser: sub-packages,
// each one concern, that the browser uses through a small exported API
// and that know nothing of it. Each is listed with the most exported
// names its API may have; a sub-package not listed fails until it is.
var browserRooms = map[string]int{
	// keeping secret values out of screenshots, PDFs and the concealed
	// live view: Capture, Holds, VisibleForms
	"hostfuncs/browser/conceal": 3,
	// finding the Playwright driver and Chromium: Version, Options,
	// Chromium, HasDisplay, NoDriver, NoChromium; and starting Chromium
	// while the driver loads: Prelaunch names a launch, PrelaunchEnviron
	// hands it to the driver's environment
	"hostfuncs/browser/driver": 8,
	// the WebDriver side of a Selenium Grid hub: Hub and its NewSession
	// (queued, withdrawn at the queue timeout), Session, StartAllowance,
	// Delete and Get (the hub's and nodes' endpoints)
	"hostfuncs/browser/grid": 6,
	// the operator's live view of a session: screencast, concealed frames
	// for a link's holder, the operator's input. View with New, its three
	// calls (Screencast, ScreencastConcealed, Input), Tabs (what it needs of
	// the sessions), Frame, Input and Input's six kinds
	"hostfuncs/browser/live": 14,
	// the main content of a page's visible DOM, as Readability finds it:
	// Page (what the page's walk gives) and Main
	"hostfuncs/browser/readable": 2,
	// the set-of-marks logic of a marked screenshot: Candidate and Rect,
	// Pick, the page's Regions and TextBoxes (read through an evaluate
	// function), Draw, and what the browser's tests check of a drawing
	// (Tags, Colour, Border, MinSide, RowSlack)
	"hostfuncs/browser/som": 11,
}

const browserPkg = "hostfuncs/browser"

// TestBrowserRoomsAreFenced fails when a room of hostfuncs/browser
// imports the browser or another of its rooms, is imported by a package
// other than the browser, is not used by the browser, or exports more
// names than it is allowed: the browser reaches a room only through its
// API, and the room stays a leaf. Only non-test builds count.
func TestBrowserRoomsAreFenced(t *testing.T) {
	all := moduleImports(t, "./...")
	for pkg := range all {
		if strings.HasPrefix(pkg, browserPkg+"/") {
			if _, ok := browserRooms[pkg]; !ok {
				t.Errorf("%s is not in browserRooms: declare it as a room of the browser, with the size of its API", pkg)
			}
		}
	}
	for room, most := range browserRooms {
		imports, ok := all[room]
		if !ok {
			t.Errorf("%s does not exist: take it off browserRooms", room)
			continue
		}
		for _, rel := range imports {
			if rel == browserPkg || strings.HasPrefix(rel, browserPkg+"/") {
				t.Errorf("%s imports %s: a room of the browser knows nothing of the browser or of its other rooms", room, rel)
			}
		}
		for pkg, imports := range all {
			if pkg != browserPkg && slices.Contains(imports, room) {
				t.Errorf("%s imports %s: only the browser (%s) uses its rooms", pkg, room, browserPkg)
			}
		}
		if !slices.Contains(all[browserPkg], room) {
			t.Errorf("%s is not used by %s: a room nobody uses is dead code", room, browserPkg)
		}
		if names := exportedNames(t, room); len(names) > most {
			t.Errorf("%s exports %d names %v, more than its %d: keep a room's API small (or raise its allowance, saying why)", room, len(names), names, most)
		}
	}
}

// exportedNames lists the exported top-level names (and exported methods)
// of the non-test Go files of the package at rel.
func exportedNames(t *testing.T, rel string) []string {
	t.Helper()
	dir := filepath.Join("..", "..", filepath.FromSlash(rel))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() {
					names = append(names, funcName(d))
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, id := range s.Names {
							if id.IsExported() {
								names = append(names, id.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(names)
	return names
}
