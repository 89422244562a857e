package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/wasmwright/wasmwright/abi"
)

const hostModule = "github.com/wasmwright/wasmwright"

// pluginCmd is `wasmwright plugin new NAME`: a Go plugin module an author
// builds outside this repository.
func pluginCmd(*globals) *cobra.Command {
	c := &cobra.Command{Use: "plugin", Short: "Write plugins: scaffold a new one"}
	var dir, sdk string
	nw := &cobra.Command{
		Use:   "new NAME",
		Short: "Scaffold a Go plugin module NAME (a tool, a test, a README) that builds outside this repository",
		Long: `new writes DIR/NAME (default ./NAME): a Go module with one tool, its test
and a README with the build command. The module reaches plugin-sdk through a
replace directive to the wasmwright source (--sdk, $WASMWRIGHT_SDK, or the
source tree this binary was built in, found from its own path or the
current folder).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := scaffold(args[0], dir, sdk)
			if err != nil {
				return printError(cmd.OutOrStdout(), err)
			}
			return printJSON(cmd.OutOrStdout(), map[string]string{"plugin": args[0], "dir": out,
				"build": "GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared -o " + args[0] + ".wasm ."})
		},
	}
	nw.Flags().StringVar(&dir, "dir", ".", "folder to create the module in")
	nw.Flags().StringVar(&sdk, "sdk", os.Getenv("WASMWRIGHT_SDK"), "the wasmwright source tree (holds plugin-sdk)")
	c.AddCommand(nw)
	return c
}

func init() { extraCommands = append(extraCommands, pluginCmd) }

var pluginName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

func scaffold(name, dir, sdk string) (string, error) {
	if !pluginName.MatchString(name) {
		return "", abi.Errorf(abi.CodeInputInvalid, "plugin name %q: use lower-case letters, digits and _ (a letter first), like page_title", name)
	}
	root, err := sdkRoot(sdk)
	if err != nil {
		return "", err
	}
	out, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		return "", abi.Errorf(abi.CodeInputInvalid, "%v", err)
	}
	if _, err := os.Stat(out); err == nil {
		return "", abi.Errorf(abi.CodeInputInvalid, "%s exists: pick another name or --dir", out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", abi.Errorf(abi.CodeExecutionFailed, "%v", err)
	}
	data := map[string]string{"Name": name, "Go": strings.TrimPrefix(runtime.Version(), "go"), "Module": hostModule, "SDK": root}
	for file, text := range scaffoldFiles {
		f, err := os.Create(filepath.Join(out, file))
		if err != nil {
			return "", abi.Errorf(abi.CodeExecutionFailed, "%v", err)
		}
		err = template.Must(template.New(file).Parse(text)).Execute(f, data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", abi.Errorf(abi.CodeExecutionFailed, "writing %s: %v", file, err)
		}
	}
	return out, nil
}

// sdkRoot finds the wasmwright source tree: given, or above this binary,
// or above the current folder.
func sdkRoot(given string) (string, error) {
	if given != "" {
		if !isSource(given) {
			return "", abi.Errorf(abi.CodeInputInvalid, "%s is not the wasmwright source tree (no go.mod of %s with plugin-sdk/): pass the folder you cloned wasmwright into", given, hostModule)
		}
		return filepath.Abs(given)
	}
	var starts []string
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, d := range starts {
		for ; ; d = filepath.Dir(d) {
			if isSource(d) {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", abi.Errorf(abi.CodeInputInvalid, "cannot find the wasmwright source tree (plugin-sdk): pass --sdk DIR or set WASMWRIGHT_SDK to the folder you cloned wasmwright into")
}

func isSource(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "module "+hostModule {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, "plugin-sdk"))
	return err == nil && st.IsDir()
}

var scaffoldFiles = map[string]string{
	"go.mod": `module example.com/{{.Name}}

go {{.Go}}

require {{.Module}} v0.0.0

// plugin-sdk is not published: build against your copy of the source.
replace {{.Module}} => {{printf "%q" .SDK}}
`,
	"main.go": `// Command {{.Name}} is a wasmwright tool plugin. Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared -o {{.Name}}.wasm .
package main

import (
	"strings"

	"{{.Module}}/abi"
	sdk "{{.Module}}/plugin-sdk"
)

// Args are the tool's arguments; the host checks them against the schema
// plugin-sdk derives from this struct.
type Args struct {
	Text string ` + "`" + `json:"text" desc:"the text to shout"` + "`" + `
}

func init() {
	sdk.Plugin("{{.Name}}", "0.1.0", "{{.Name}}: a wasmwright plugin")
	sdk.Tool("{{.Name}}", "Answer the text in upper case.", func(c *sdk.Call, in Args) (*abi.Result, error) {
		out, err := Shout(in.Text)
		if err != nil {
			return nil, err
		}
		return &abi.Result{Text: out}, nil
	}, sdk.ReadOnly())
}

// Shout is the tool's logic, tested natively by main_test.go.
func Shout(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", abi.Errorf(abi.CodeInputInvalid, "text is empty: pass the text to shout")
	}
	return strings.ToUpper(s), nil
}

func main() {}
`,
	"main_test.go": `package main

import "testing"

func TestShout(t *testing.T) {
	if got, err := Shout("hi there"); err != nil || got != "HI THERE" {
		t.Fatalf("Shout: %q, %v", got, err)
	}
	if _, err := Shout("  "); err == nil {
		t.Fatal("empty text must be refused")
	}
}
`,
	"README.md": `# {{.Name}}

A wasmwright tool plugin. Test and build:

    go test ./...
    GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared -o {{.Name}}.wasm .

(-buildmode=c-shared is required: without it the module is a WASI command
the host refuses. -trimpath keeps this folder's path out of the module, so
the same source builds the same bytes, and the same sha256 pin, anywhere.) Then copy {{.Name}}.wasm into the host's plugins_dir, pin
it (sha256sum {{.Name}}.wasm >> SHA256SUMS there), add [plugins.{{.Name}}]
and the plugin to a personality, and check it:

    wasmwright plugins verify
    wasmwright call {{.Name}} '{"text":"hello"}'

go.mod reaches plugin-sdk through a replace directive to {{.SDK}}.
`,
}
