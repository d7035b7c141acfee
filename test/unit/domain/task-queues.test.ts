import { describe, expect, it } from '@jest/globals';
import { heavyTaskQueue } from '../../../src/domain/task-queues.ts';

describe('task queues', () => {
  it('names the heavy jobs queue beside the main one, once', () => {
    expect(heavyTaskQueue('docs-service')).toBe('docs-service-heavy');
    expect(heavyTaskQueue('docs-service-heavy')).toBe('docs-service-heavy');
    expect(heavyTaskQueue('wf-git-sync-1')).toBe('wf-git-sync-1-heavy');
  });
});
