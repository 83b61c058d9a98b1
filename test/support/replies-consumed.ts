// A setup file of every test (vitest.config.ts): after each test, every fake model server made in
// the file must have served all the replies the test queued. One left over means the product made
// fewer calls than the test scripted, or the test queued what it never needed; either way the test
// fails here, and the queue is emptied so the reply can never become the next test's answer.
import { afterEach } from 'vitest';
import { liveScripts } from './fake-http-server.js';

afterEach((context) => {
  const left: string[] = [];
  for (const script of liveScripts) {
    const unconsumed = script.drain().length;
    if (unconsumed > 0) left.push(`${script.name}: ${unconsumed} queued ${unconsumed === 1 ? 'reply' : 'replies'} never requested`);
  }
  // A test that failed already has its own reason; its leftovers are only cleared.
  if (left.length > 0 && context.task.result?.state !== 'fail') throw new Error(`this test left ${left.join('; ')}`);
});
