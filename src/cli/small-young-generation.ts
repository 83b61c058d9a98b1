// Imported FIRST by the `ai-zen-daemon` entry, before any other module is evaluated.
//
// The daemon allocates in bursts (loading its modules, the startup read of every session, a status
// of thousands) and then sits idle for hours. V8 doubles its young generation under such a burst
// and keeps it until its memory reducer runs, a minute or so later. Loading the daemon's modules
// alone grows it from 1 MB to 16 MB (measured: `v8.getHeapSpaceStatistics()` before and after the
// imports), so the flag must be set before they load, not when the daemon starts. With it, 1,000
// idle sessions cost 70 MB resident from the first seconds instead of 88 MB (bench c).
// The flag is read at each resize, so setting it at run time takes effect; the short-lived client
// commands pay a few more scavenges for it (not measurable in their run time).
import v8 from 'node:v8';

try {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
} catch {
  // An engine without the flag only costs memory.
}
