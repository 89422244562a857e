package abi_test

import (
	"encoding/json"
	"fmt"

	"github.com/wasmwright/wasmwright/abi"
)

// A detector for one vendor names it in details.vendor. abi/README.md
// ("Naming the vendor") shows this output; a test there keeps it equal.
func ExampleBotWall() {
	pg := &abi.Page{URL: "https://shop.example/", Status: 403}
	e := abi.BotWall("DataDome", abi.WallCaptcha, pg, "header x-datadome: protected",
		"shop.example is showing a bot wall (DataDome captcha) instead of the page: it was not read. A person can pass it: ask for a takeover, or use another source.")
	b, _ := json.MarshalIndent(map[string]any{"error": e}, "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "error": {
	//     "code": "bot_wall",
	//     "message": "shop.example is showing a bot wall (DataDome captcha) instead of the page: it was not read. A person can pass it: ask for a takeover, or use another source.",
	//     "details": {
	//       "kind": "captcha",
	//       "marker": "header x-datadome: protected",
	//       "status": "403",
	//       "url": "https://shop.example/",
	//       "vendor": "DataDome"
	//     }
	//   }
	// }
}
