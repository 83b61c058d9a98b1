// The built-in minimal template (R7): the ONE fallback, used only when no skill can be read
// (missing, unreadable, bad frontmatter). It is a skill body like any other, so its sections are
// read from its `## ` headings the same way; the code keeps no other list of sections.

export const MINIMAL_TEMPLATE = `# Handoff

You are stopping the current work and handing it over to a successor with an empty context.
Write ONE file, at exactly the path you were given, with your write tool; change nothing else.
Write in the language of the conversation. Take facts (branch, commit, changes, ports) from the
fact block; do not invent them. Keep these sections in this order. Reply with one short line.

## 💬 Conversation breakpoint

The user's last request and what was last delivered.

## 🎯 Task goal

Intent and acceptance criteria.

## 📊 Current state

Branch/commit, uncommitted changes, tests, processes and ports.

## ✅ Done

Each item with its output path and how it was verified.

## 📋 Not done

By priority, each with its next smallest action.

## 🧠 Key decisions

Why, and the dead ends walked.

## ⚠️ Constraints and preferences

Rules the user insisted on, conventions, what must not be touched.

## 📁 File index

Path, purpose, changed this time or not.

## 🔔 First steps for the successor

At most 3 commands that can be run as they are.
`;
