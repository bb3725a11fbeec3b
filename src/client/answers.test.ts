import { describe, expectTypeOf, it } from 'vitest';
import type {
  AppEvent,
  AppView,
  Cluster,
  Registry,
  RequestBody,
  StatusView,
  TimelineEntry,
  TreeNode,
} from './answers.ts';

// Checked by the typecheck (tsc covers test files): a name that stopped resolving (never) or lost a field fails it,
// whether the server's schema is inline or a named component.
describe('the names of answers', () => {
  it('resolve to the shapes of the generated document', () => {
    expectTypeOf<AppView>().not.toBeNever();
    expectTypeOf<AppView>().toHaveProperty('sync_status');
    expectTypeOf<StatusView>().toHaveProperty('operationState');
    expectTypeOf<AppEvent>().toHaveProperty('reason');
    expectTypeOf<TreeNode>().toHaveProperty('parent');
    expectTypeOf<Cluster>().toHaveProperty('server_url');
    expectTypeOf<Registry>().toHaveProperty('has_password');
    expectTypeOf<TimelineEntry>().toHaveProperty('kind');
    expectTypeOf<RequestBody<'/api/v1/apps/{namespace}/{name}/rollback', 'post'>>().toHaveProperty('revision');
  });
});
