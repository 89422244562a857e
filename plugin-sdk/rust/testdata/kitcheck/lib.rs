// kitcheck exercises the Rust kit through a real host (kit_test.go): a
// compact hook that upper-cases the snapshot (or fails with a coded error
// for the tool "boom"), a tool that echoes its call, and a self-test case.

#[path = "../../mod.rs"]
mod sdk;

fn hook(_: &sdk::Call, req: sdk::HookRequest) -> Result<sdk::HookResponse, sdk::Error> {
    if req.tool == "boom" {
        return Err(sdk::Error::new("timeout", "boom was slow"));
    }
    let mut r = req.result.unwrap_or_default();
    r.snapshot = r.snapshot.to_uppercase();
    r.warnings.push(format!("seen by kitcheck in {}", req.session));
    Ok(sdk::HookResponse { result: Some(r), error: req.error })
}

fn echo(c: &sdk::Call, args: &[u8]) -> Result<Vec<u8>, sdk::Error> {
    let v = sdk::json::parse(args).map_err(|e| sdk::Error::new(sdk::abi::CODE_INPUT_INVALID, e.to_string()))?;
    let say = v.get("say").and_then(|s| s.as_str()).unwrap_or("");
    Ok(format!("{{\"text\":{}}}", sdk::json::quote(&format!("{} in {}: {}", c.tool, c.session, say))).into_bytes())
}

fn cases() -> Vec<sdk::SelfTestCase> {
    vec![sdk::SelfTestCase {
        name: "upper".into(),
        role: sdk::abi::ROLE_COMPACT.into(),
        result: Some(sdk::HookResult { snapshot: "- a".into(), ..Default::default() }),
        want: String::new(),
    }]
}

pub static PLUGIN: sdk::Plugin = sdk::Plugin {
    name: "kitcheck",
    version: "0.1.0",
    description: "The Rust kit's check.",
    features: &[sdk::abi::FEATURE_RAW_SNAPSHOT],
    hooks: &[sdk::abi::ROLE_COMPACT],
    hook: Some(hook),
    tools: &[sdk::Tool {
        name: "kit_echo",
        description: "Echo what it is told.",
        input_schema: r#"{"type":"object","properties":{"say":{"type":"string"}},"additionalProperties":false}"#,
        read_only: true,
        run: echo,
    }],
    cases: Some(cases),
    ..sdk::Plugin::EMPTY
};
