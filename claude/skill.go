package claude

// runbookAuthorSkill is skills/runbook-author/SKILL.md of the plugin.
const runbookAuthorSkill = `---
name: runbook-author
description: Turn a task you just finished into a Foundry runbook with ` + "`foundry runbook new`" + `, so the next agent follows it instead of improvising. Use after any recurring or error-prone task (a deploy, a release, a key rotation, a migration, a tricky local setup) that has no runbook yet, or when the user says "make this a runbook".
---

# Runbook author

A runbook is ` + "`.foundry/runbooks/<slug>.md`" + `: front matter with a ` + "`title`" + ` and a
` + "`trigger`" + `, then the procedure. Agents consult ` + "`runbook_list`" + ` before recurring
tasks and must follow a runbook that exists, so write it for a reader who has
never seen this project.

## Steps

1. Check that no runbook covers the task already: call
   ` + "`mcp__plugin_foundry-core_foundry__runbook_list`" + ` (or ` + "`mcp__foundry__runbook_list`" + `
   when the server is registered per project). If one does, improve that one
   instead of adding a second.
2. Pick a slug: lowercase letters, digits and hyphens, starting with a letter
   or digit (` + "`deploy-production`" + `, ` + "`rotate-api-keys`" + `). Pick a title that names the
   task, and a trigger: the words a person or agent would use when the task
   comes up again (` + "`deploy, release to prod`" + `).
3. Create the file from the template (it refuses to overwrite an existing
   runbook):

   ` + "```sh" + `
   foundry runbook new <slug> --title "<title>" --trigger "<trigger>"
   ` + "```" + `

4. Fill in the procedure from what you actually did in this task, not from
   what you would have liked to do:
   - **When**: the situation that calls for it, and when not to use it.
   - **Before you start**: access, tools and state needed, with the command
     that checks each.
   - **Steps**: numbered, one action each, with the exact command and what
     its output should look like.
   - **Check**: how to tell it worked.
   - **If it goes wrong**: the failures you hit or saw, and how to roll back.
5. Keep it short and concrete: commands over prose, no secrets (name where a
   credential comes from, never its value).
6. Read it back with ` + "`mcp__plugin_foundry-core_foundry__runbook_get`" + ` to check it
   renders, then report only its path and a one-line summary.
`
