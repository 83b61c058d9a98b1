// Attaches handoff and migration to every project a command opens: one MigrationService per
// project (ContextGuard reads its `busy`, R14), the AutoMigratePlugin (R19, R20) and the event bus
// the terminal UI subscribes to. Commands find them with `projectHandoff(project)`.
import { EventBus } from '../../events.js';
import { AutoMigratePlugin, nonInteractiveChooser, type AutoMigrateChooser } from '../../handoff/auto-migrate.js';
import { MigrationService } from '../../handoff/migration-service.js';
import { createFactsProvider } from '../../probe/capture-facts.js';
import type { OpenProject, ProjectExtension } from '../shared/open-project.js';
import type { Tool } from '../../agent/types.js';
import { createHandoffTool } from '../../handoff/handoff-tool.js';
import type { ExecutorName } from '../../session/format.js';

export interface ProjectHandoff {
  readonly service: MigrationService;
  readonly autoMigrate: AutoMigratePlugin;
  /** handoff.started / handoff.downgraded / handoff.written / session.migrated / handoff.failed / session.overflowed. */
  readonly events: EventBus;
}

export interface HandoffExtensionOptions {
  /** The terminal UI's selector (R19); used only when the project is opened interactively. */
  readonly interactiveChooser?: (project: OpenProject) => AutoMigrateChooser;
  /** S3: the terminal UI asks the person when the model calls its handoff tool. */
  readonly agentRequestChooser?: (project: OpenProject) => (goal: string | null) => Promise<ExecutorName | 'skip'>;
}

const attached = new WeakMap<OpenProject, ProjectHandoff>();

/** The handoff parts of an open project; throws when the extension was not installed. */
export function projectHandoff(project: OpenProject): ProjectHandoff {
  const found = attached.get(project);
  if (!found) throw new Error('handoff extension not installed on this project');
  return found;
}

export function attachHandoff(project: OpenProject, choose: AutoMigrateChooser): ProjectHandoff {
  const logger = project.logger.child({ component: 'handoff' });
  const events = new EventBus((error, event) => logger.warn({ err: error, event }, 'an event listener failed'));
  const service = new MigrationService({
    root: project.root,
    agent: project.agent,
    context: project.context,
    toolNames: project.agent.toolNames,
    model: project.config.modelConfigured ? { client: project.client, model: project.config.model } : null,
    defaultExecutor: project.config.executor,
    facts: createFactsProvider({ root: project.root }),
    events,
    logger,
  });
  // R14: ContextGuard relaxes to ×2 while the service is busy.
  project.isHandoffBusy = () => service.busy;
  const autoMigrate = new AutoMigratePlugin({ service, choose, events, logger });
  project.agent.use(autoMigrate);
  const handoff: ProjectHandoff = { service, autoMigrate, events };
  attached.set(project, handoff);
  return handoff;
}

export function handoffExtension(options: HandoffExtensionOptions = {}): ProjectExtension {
  return (project, mode) => {
    // R20: without a terminal there is nobody to ask; the default executor, silently.
    const choose = mode.interactive && options.interactiveChooser ? options.interactiveChooser(project) : nonInteractiveChooser();
    const { autoMigrate, service } = attachHandoff(project, choose);
    // S3: the model's own handoff — asked of the person in the chat; with nobody to ask, only when the config allows it.
    let requested: { executor: ExecutorName; goal: string | null } | null = null;
    const ask = mode.interactive && options.agentRequestChooser ? options.agentRequestChooser(project) : null;
    project.agent.addTool(
      createHandoffTool({
        isBusy: () => service.busy,
        decide: async (goal) => {
          if (ask) return ask(goal);
          return project.config.agentMayMigrate ? service.defaultExecutor : 'not-allowed';
        },
        request: (request) => (requested = request),
      }) as Tool,
    );
    return {
      // After the turn, never inside it (the handoff turn is itself a send).
      async afterTurn() {
        const request = requested;
        requested = null;
        if (request) {
          await service.handoff({ mode: 'migrate', executor: request.executor, ...(request.goal !== null ? { goal: request.goal } : {}) });
          return;
        }
        await autoMigrate.afterTurn();
      },
    };
  };
}
