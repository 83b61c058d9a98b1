// The Node options the daemon process runs with, given on its own command line by `start` (V8
// reads them before anything runs; setting a flag after start-up is unsupported and may crash).
//
// The daemon allocates in bursts (loading its modules, the startup read of every session, a status
// of thousands) and then sits idle for hours. V8 grows its young generation under such a burst
// (loading the modules alone took it from 1 MB to 16 MB) and keeps it until its memory reducer runs,
// a minute or so later. A young generation capped at 1 MB keeps 1,000 idle sessions at ~70 MB
// resident from the first seconds instead of ~88 MB (bench c), for a few more scavenges.
// --max-semi-space-size is also allowed in NODE_OPTIONS, which is how `start --foreground` (run by
// systemd or launchd, not spawned by us) gets it: see docs/daemon.md.
export const DAEMON_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=1'];
