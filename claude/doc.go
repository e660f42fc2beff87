// Package claude integrates Foundry with Claude Code.
//
//   - [PostToolUse] is the validate-contract hook: after a Write, Edit or
//     MultiEdit of a .json file under a project's .foundry/blackboard/, it
//     re-reads the file and validates it against the contract its "schema"
//     field names. A rejection is exit code 2 with a short text that Claude
//     Code hands to the model; anything else is exit code 0 and silence.
//   - [Setup] merges what a project needs into .mcp.json (the foundry MCP
//     server) and .claude/settings.json (the hook), never clobbering an
//     entry that is already there and never adding one twice.
//   - [BuildPlugin] lays out the foundry-core plugin: manifest, hooks, MCP
//     server, the contracts and the runbook-author skill.
//
// Claude Code addresses the server's tools as
// mcp__plugin_foundry-core_foundry__<name> when they come from the plugin and
// as mcp__foundry__<name> when the server is registered per project.
package claude
