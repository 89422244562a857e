// Command swap measures hot swap of the first-party hook plugins while
// calls flow through a personality's pipeline: the latency of each swap,
// the calls that failed during the swaps (goal: 0) and the wall pages
// that reached the caller unflagged (goal: 0); then how long a swap takes
// to refuse a detector that loops (bounded by its work budget,
// host.hook_fuel_per_kb). It prints a
// markdown section.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

const config = `
[host]
plugins_dir = %q
cache_dir = %q
[plugins.misbehave]
[plugins.blockdetect]
[plugins.snapcompact]
[plugins.secretmask]
[plugins.testhooks]
[personalities.agent]
plugins = ["misbehave", "blockdetect", "snapcompact", "secretmask"]
tools = ["*"]
grants = ["events", "secrets.mask"]
hooks = { detect = "blockdetect", compact = "snapcompact", mask = "secretmask" }
`

var hooks = []string{"blockdetect", "snapcompact", "secretmask"}

func main() {
	benchflag.Unused()
	rounds := flag.Int("rounds", 4, "swaps of each hook plugin under load (0: only the command's swaps, -cli-rounds)")
	workers := flag.Int("workers", 4, "goroutines calling through the pipeline during the swaps")
	cliRounds := flag.Int("cli-rounds", 5, "swaps of each plugin with the wasmwright plugins swap command (0: none)")
	flag.Parse()
	if *rounds == 0 { // only the command's swaps
		cliSwaps(*cliRounds)
		return
	}
	dir := measure.Must(os.MkdirTemp("", "ww-bench-swap-"))
	defer os.RemoveAll(dir)
	plugins := filepath.Join(dir, "plugins")
	mods := map[string]string{"misbehave": "sandbox/testdata/misbehave", "testhooks": "host/testdata/testhooks"}
	for _, n := range hooks {
		mods[n] = "plugins/" + n
	}
	measure.Must(wasmbuild.Install(plugins, mods))
	// Two builds of each hook plugin that differ only in their bytes.
	builds := map[string][2][]byte{}
	for _, n := range hooks {
		builds[n] = [2][]byte{measure.Must(wasmbuild.Bytes("plugins/"+n, variantFlag("plugins/"+n))), measure.Must(wasmbuild.Bytes("plugins/" + n))}
	}
	looping := measure.Must(wasmbuild.Bytes("host/testdata/testhooks", "-ldflags=-X main.broken=loop"))
	cfg := measure.Must(host.ParseConfig(fmt.Sprintf(config, plugins, filepath.Join(dir, "cache")), "bench.toml", dir))
	ctx := context.Background()
	h := measure.Must(host.New(ctx, cfg, host.Options{NoBrowser: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	defer h.Close(ctx)

	normal, _ := json.Marshal(map[string]any{"title": "Shop", "snapshot": "- link \"Home\" [ref=e2]:\n  - /url: https://example.test/"})
	wall, _ := json.Marshal(map[string]any{"title": "Just a moment...", "status": 403, "headers": map[string]string{"cf-mitigated": "challenge", "server": "cloudflare"}})
	var calls, failed, unflagged atomic.Int64
	var firstErr atomic.Value
	var halt atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Go(func() {
			for n := 0; !halt.Load(); n++ {
				calls.Add(1)
				isWall := n%2 == 1
				args := normal
				if isWall {
					args = wall
				}
				res, err := h.Call(ctx, host.Request{Personality: "agent", Tool: "page", Args: args})
				var e *abi.Error
				switch {
				case isWall && err == nil:
					unflagged.Add(1)
				case isWall && errors.As(err, &e) && e.Code == abi.CodeBotWall:
				case err != nil || res == nil:
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprint(err))
				}
			}
		})
	}
	lat := map[string][]time.Duration{}
	t0 := time.Now()
	for r := 0; r < *rounds; r++ {
		for _, n := range hooks {
			w := builds[n][r%2]
			s := sha256.Sum256(w)
			rep, err := h.Swap(ctx, n, w, hex.EncodeToString(s[:]))
			if err != nil {
				log.Fatalf("swap %s: %v", n, err)
			}
			lat[n] = append(lat[n], rep.Total)
		}
	}
	during := time.Since(t0)
	halt.Store(true)
	wg.Wait()

	s := sha256.Sum256(looping)
	t1 := time.Now()
	_, err := h.Swap(ctx, "testhooks", looping, hex.EncodeToString(s[:]))
	refuse := time.Since(t1)
	if err == nil {
		log.Fatal("a looping detector was swapped in")
	}

	fmt.Println("## Hot swap under load")
	fmt.Println()
	fmt.Printf("`go -C internal/bench run ./swap`: a personality with the three first-party hook plugins (detect, compact, mask); %d goroutines call through its pipeline, every other call a Cloudflare challenge page, while each hook plugin is swapped %d times (alternating two builds that differ in their bytes, so every swap loads, validates, self-tests on the fixtures, warms and publishes a new version). Swap latency is from Host.Swap's call to its return; the first swap of a build compiles it, later ones hit the compilation cache.\n\n", *workers, *rounds)
	fmt.Println("| plugin | first swap | median swap | slowest swap |")
	fmt.Println("|---|---|---|---|")
	for _, n := range hooks {
		slow := lat[n][0]
		for _, d := range lat[n] {
			slow = max(slow, d)
		}
		fmt.Printf("| %s | %s | **%s** | %s |\n", n, measure.D(lat[n][0]), measure.D(measure.Med(lat[n])), measure.D(slow))
	}
	fmt.Println()
	fmt.Printf("Calls during the %d swaps (%s): **%d**, failed: **%d**, wall pages that reached the caller unflagged: **%d** (goal: 0 and 0).\n", *rounds*len(hooks), measure.D(during), calls.Load(), failed.Load(), unflagged.Load())
	if v := firstErr.Load(); v != nil {
		fmt.Printf("First failure: %s\n", v)
	}
	fmt.Println()
	fmt.Printf("A swap to a detector whose hook loops is refused in **%s**, compiling it included (its self-test case runs past its work budget, host.hook_fuel_per_kb = %d by default): %s\n", measure.D(refuse), host.DefaultHookFuelPerKB, abi.AsError(err).Code)
	if *cliRounds > 0 {
		cliSwaps(*cliRounds)
	}
}

// variantFlag is a build flag that changes a plugin's bytes and nothing it
// does: Go's -trimpath; for a Rust plugin (a folder with lib.rs), which
// rustc would refuse -trimpath for, optimising for size a step further
// (the later -C opt-level wins over the kit's).
func variantFlag(dir string) string {
	if _, err := os.Stat(filepath.Join(wasmbuild.Root(), dir, "lib.rs")); err == nil {
		return "-Copt-level=z"
	}
	return "-trimpath"
}
