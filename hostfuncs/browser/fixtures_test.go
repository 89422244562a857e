package browser

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"time"
)

// fixtures serves the test pages on loopback. Every page is the project's
// own; nothing comes from the internet.
func fixtures() *httptest.Server {
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("X-Fixture", path)
			io.WriteString(w, "<!doctype html>"+body)
		})
	}
	page("/", `<title>Home</title><h1>Welcome</h1><p>Start here.</p><a href="/form">Form</a> <a href="/other">Other</a>`)
	page("/other", `<title>Other</title><h1>Other page</h1><a href="/">Home</a>`)
	page("/form", `<title>Sign up</title>
		<form action="/submit" method="post">
		<label>Name <input name="name"></label>
		<label>Password <input type="password" name="pw"></label>
		<label>Colour <select name="colour"><option value="r">Red</option><option value="g">Green</option></select></label>
		<label><input type="checkbox" name="terms"> I agree</label>
		<button type="submit">Send</button>
		</form>
		<button style="display:none">Hidden</button>
		<button disabled>Disabled</button>
		<button onclick="document.getElementById('gone').remove()">Remove it</button>
		<button id="gone">Will go</button>`)
	mux.HandleFunc("/submit", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>Thanks</title><h1>Thanks %s</h1><p>colour=%s terms=%s pwlen=%d</p>",
			html.EscapeString(r.FormValue("name")), html.EscapeString(r.FormValue("colour")), html.EscapeString(r.FormValue("terms")), len(r.FormValue("pw")))
	})
	page("/dialogs", `<title>Dialogs</title>
		<button onclick="alert('hello there')">Alert</button>
		<button onclick="document.getElementById('out').textContent = confirm('sure?') ? 'yes' : 'no'">Confirm</button>
		<button onclick="document.getElementById('out').textContent = 'name=' + prompt('your name?', 'anon')">Prompt</button>
		<p id="out">nothing</p>`)
	// Pages that open the next dialog as soon as one is answered, as they
	// parse: a long run of alerts, and one that never ends.
	page("/alerts", `<title>Alerts</title><script>for (let i = 1; i <= 500; i++) alert('alert ' + i)</script><p>after the alerts</p>`)
	page("/alertsforever", `<title>Forever</title><script>for (;;) confirm('again?')</script><p>never</p>`)
	// A login the page filled itself, its password field named by a label
	// and with a placeholder of its own: Playwright prints such a field's
	// value on a "- text:" line of its own under the textbox.
	page("/prefilled", `<title>Prefilled</title><label>Password <input type="password" placeholder="at least 12 characters" value="page-filled-s3cret"></label>
		<label>User <input placeholder="your login" value="ada"></label>`)
	// What an agent hovers, drags and drops on, built the ways sites build
	// them: a focusable span whose menu a CSS :hover rule reveals, an
	// inline onmouseenter tooltip, title tooltips, cards dragged by
	// draggable=true and columns that take drops through listeners added
	// with addEventListener (no attribute says so).
	page("/kanban", kanbanPage)
	page("/frames", `<title>Frames</title><h1>Outer</h1><iframe src="/inner" title="inner frame"></iframe>`)
	page("/inner", `<title>Inner</title><button onclick="this.textContent='clicked inside'">Inner button</button>`)
	page("/framed-login", `<title>Framed login</title><iframe src="/inner-login" title="login frame" style="width:400px;height:120px"></iframe>`)
	page("/inner-login", `<title>Inner login</title><body style="margin:0"><input type="password" aria-label="Password" style="width:300px;height:80px">`)
	page("/tabs", `<title>Tabs</title><a href="/other" target="_blank">Open other in a new tab</a>`)
	// Clicks that cannot open a tab: a modified click on a plain button, a
	// form whose target is a frame of the page.
	page("/notab", `<title>No tab</title>
		<button onclick="this.textContent='pressed'">Press</button>
		<form action="/other" target="pane"><button>Into the pane</button></form>
		<iframe name="pane" title="pane" src="about:blank"></iframe>
		<a href="/other" target="_blank">Open other in a new tab</a>`)
	page("/upload", `<title>Upload</title><input type="file" aria-label="File" onchange="document.getElementById('f').textContent = 'got ' + this.files[0].name">
		<button onclick="document.getElementById('hidden-file').click()">Choose file</button>
		<input type="file" id="hidden-file" style="display:none" onchange="document.getElementById('f').textContent = 'chose ' + this.files[0].name">
		<p id="f">no file</p>`)
	page("/logins", `<title>Logins</title>
		<label>Old password <input type="password" name="old"></label>
		<label>User <input name="user"></label>
		<label>New password <input type="password" name="new"></label>`)
	page("/drag", `<title>Drag</title>
		<div id="src" draggable="true" role="button" aria-label="Drag me" style="width:80px;height:40px;background:#ccc">Drag me</div>
		<div id="dst" role="region" aria-label="Drop zone" style="width:200px;height:100px;border:1px solid #000;margin-top:40px"
			ondragover="event.preventDefault()" ondrop="event.preventDefault(); this.textContent='dropped!'">Drop here</div>`)
	page("/console", `<title>Console</title><script>
		console.log('plain log');
		console.warn('a warning');
		console.error('something broke');
		const boom = new Promise(r => setTimeout(() => { r(); throw new Error('uncaught boom') }, 0));
		const data = fetch('/api/data?x=1').then(r => r.json()).then(d => console.log('data', d.value));
		// Once the error is thrown and the fetch answered, the page says so:
		// tests wait for this text instead of sleeping.
		Promise.all([boom, data]).then(() => setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p>console ready</p>'), 0));
		localStorage.setItem('token', 'abc123'); sessionStorage.setItem('tab', 'one');
		document.cookie = 'visited=yes; path=/; max-age=3600';
		</script><style>h1 { color: rgb(200, 10, 10) }</style><h1>Console</h1><img src="/img.png" alt="a pixel" width="10" height="10">`)
	mux.HandleFunc("/api/data", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"value":42}`)
	})
	mux.HandleFunc("/img.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(onePixelPNG)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "<!doctype html><title>Slow</title>finally")
	})
	page("/later", `<title>Later</title><p id="p">loading</p><script>setTimeout(() => { document.getElementById('p').textContent = 'ready now' }, 300)</script>`)
	page("/article", `<title>Article</title>
		<header><a href="/">Site name</a> <nav><a href="/a">Section A</a> <a href="/b">Section B</a></nav></header>
		<aside>Related: other stories</aside>
		<main><article><header><h1>The headline</h1></header>
			<p>First paragraph of the story.</p>
			<p style="display:none">Hidden paragraph.</p><p style="visibility:hidden">Invisible paragraph.</p>
			<ul><li>one point</li><li>another point</li></ul>
			<form><label>Subscribe <input value="email here"></label><button>Join</button></form>
			<p>Last paragraph, with <a href="/x">a link</a> inside.</p>
			<footer>By the author</footer></article></main>
		<footer>Copyright the site</footer>`)
	page("/long", `<title>Long</title><div style="height:5000px">tall</div><button>Bottom</button>`)
	mux.HandleFunc("/blocked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("cf-mitigated", "challenge")
		w.WriteHeader(403)
		io.WriteString(w, "<!doctype html><title>Just a moment...</title><p>Checking your browser</p>")
	})
	return httptest.NewServer(mux)
}

var onePixelPNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
	0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
	0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
}

// kanbanPage is the /kanban fixture.
const kanbanPage = `<title>Kanban</title>
<style>.acct-wrap{position:relative;display:inline-block}.dropdown{display:none}.acct-wrap:hover .dropdown{display:block}
.col{display:inline-block;width:200px;min-height:150px;border:1px solid #999;vertical-align:top}</style>
<header><div class="acct-wrap"><span tabindex="0" class="acct">Account menu</span><div class="dropdown"><a href="/other">Settings</a></div></div></header>
<main><p>Your quota <span id="q" onmouseenter="tip.hidden=false" onmouseleave="tip.hidden=true">(?)</span> resets monthly.</p><div id="tip" role="tooltip" style="position:absolute" hidden>100 cards per board</div>
<p><abbr title="Work in progress">WIP</abbr> limit is <span title="three cards">3</span>.</p>
<div class="col" id="todo"><h2>To do</h2><div class="card" draggable="true" id="c1">Write report</div><div class="card" draggable="true" id="c2">Fix bug</div></div>
<div class="col" id="done"><h2>Done</h2></div>
<p id="out">nothing moved</p></main>
<script>
for (const c of document.querySelectorAll('.card')) c.addEventListener('dragstart', e => e.dataTransfer.setData('text/plain', c.id));
for (const col of document.querySelectorAll('.col')) {
  col.addEventListener('dragover', e => e.preventDefault());
  col.addEventListener('drop', e => { e.preventDefault(); const c = document.getElementById(e.dataTransfer.getData('text/plain')); col.appendChild(c); out.textContent = c.textContent + ' moved to ' + col.querySelector('h2').textContent; });
}
</script>`
