// One agent: its configuration as readable sections (language model, voice
// and transcriber with their fallback chains, VAD, greeting, pre-call
// webhook, tools), edited through the agent update's mutation (updateAgent). The problems
// the agent update reports (`extensions.detail`: path, rule, message) show next to their
// fields.
import type { CombinedError } from '@urql/core';
import { useMutation, useQuery } from '@urql/preact';
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  type AgentDetail,
  type AgentTool,
  type ConfigMember,
  ConsoleAgent,
  ConsoleUpdateAgent,
  type WireConfig,
} from '../../console-operations/console-operations.ts';
import { snakeCase } from '../../records/names.ts';
import {
  type Draft,
  type FieldSpec,
  fieldId,
  inputOf,
  otherMembers,
  type Problem,
  parseField,
  pathOf,
  type SectionSpec,
  sections,
} from '../agent-form.ts';
import { documentOf } from '../client.ts';
import { dateTime, words } from '../format.ts';
import { hrefOf } from '../route.ts';
import { useMissingScope } from '../scopes.ts';
import { Empty, ErrorNote, errorMessage, Loading } from '../ui.tsx';

export function AgentPage({ id }: { id: string }) {
  const [result, reexecute] = useQuery({ query: documentOf(ConsoleAgent), variables: { id } });
  if (result.error && !result.data)
    return (
      <ErrorNote error={result.error} what="the agent" retry={() => reexecute({ requestPolicy: 'network-only' })} />
    );
  if (!result.data) return <Loading what="the agent" />;
  if (!result.data.agent) {
    return (
      <section class="page">
        <Breadcrumb name="Not found" />
        <Empty>No agent {id} in this organization.</Empty>
      </section>
    );
  }
  return <AgentEditor key={result.data.agent.id} agent={result.data.agent} />;
}

function Breadcrumb({ name }: { name: string }) {
  return (
    <nav class="breadcrumb" aria-label="Breadcrumb">
      <a href={hrefOf({ page: 'agents' })}>Agents</a> <span aria-hidden="true">/</span>{' '}
      <span aria-current="page">{name}</span>
    </nav>
  );
}

const draftOf = (agent: AgentDetail): Draft => ({
  general: { name: agent.name, type: agent.type, prompt_template: agent.promptTemplate },
  ...Object.fromEntries(
    sections.flatMap((section) => (section.member ? [[section.member, agent[section.member]?.json ?? null]] : [])),
  ),
});

const sectionKey = (section: SectionSpec) => section.member ?? 'general';

/** What the agent update said was wrong, member by member; a failure without details is one problem without a path. */
function problemsOf(error: CombinedError): Problem[] {
  const detailed = error.graphQLErrors.flatMap((e) =>
    Array.isArray(e.extensions?.detail) ? (e.extensions.detail as Problem[]) : [],
  );
  return detailed.length > 0 ? detailed : [{ path: '', message: errorMessage(error) }];
}

function AgentEditor({ agent: loaded }: { agent: AgentDetail }) {
  const [agent, setAgent] = useState(loaded);
  const [draft, setDraft] = useState(() => draftOf(loaded));
  const [dirty, setDirty] = useState<Set<string>>(new Set());
  const [problems, setProblems] = useState<Problem[]>([]);
  const [saved, setSaved] = useState(false);
  const [update, runUpdate] = useMutation(documentOf(ConsoleUpdateAgent));
  // A key that may not update agents reads the form, and cannot save it.
  const lacksUpdate = useMissingScope('Mutation.updateAgent');
  useEffect(() => {
    if (!saved) return;
    const timer = setTimeout(() => setSaved(false), 4000);
    return () => clearTimeout(timer);
  }, [saved]);

  const change = (section: SectionSpec, field: FieldSpec, raw: string | boolean) => {
    const key = sectionKey(section);
    const current = (key === 'general' ? draft.general : draft[section.member!]) ?? {};
    const next: WireConfig = { ...current };
    const value = parseField(field, raw);
    if (value === undefined) delete next[field.key];
    else next[field.key] = value;
    setDraft({ ...draft, [key]: next });
    setDirty(new Set(dirty).add(key));
    setSaved(false);
  };

  const save = async (event: Event) => {
    event.preventDefault();
    const input: Record<string, unknown> = {};
    for (const key of dirty) {
      if (key === 'general') {
        const { name, type, prompt_template: promptTemplate } = draft.general;
        Object.assign(input, { name: name ?? '', type, promptTemplate: promptTemplate ?? '' });
      } else {
        input[key] = inputOf(draft[key as ConfigMember]);
      }
    }
    const result = await runUpdate({ id: agent.id, input });
    if (result.error) {
      setProblems(problemsOf(result.error));
      return;
    }
    const fresh = result.data!.updateAgent;
    setAgent(fresh);
    setDraft(draftOf(fresh));
    setDirty(new Set());
    setProblems([]);
    setSaved(true);
  };

  const discard = () => {
    setDraft(draftOf(agent));
    setDirty(new Set());
    setProblems([]);
  };

  const matched = new Set(sections.flatMap((section) => section.fields.map((field) => pathOf(section, field))));
  const general = problems.filter(
    (problem) =>
      !matched.has(problem.path) && !sections.some((s) => s.member && problem.path.startsWith(snakeCase(s.member))),
  );

  return (
    <section class="page agent-page" data-agent-id={agent.id} aria-labelledby="agent-title">
      <Breadcrumb name={agent.name} />
      <header class="page-header">
        <div>
          <h1 id="agent-title">
            {agent.name} <span class="tag">{agent.type}</span>
          </h1>
          <p class="subtitle">
            {agent.id} · updated {dateTime(agent.updatedAt)}
          </p>
        </div>
      </header>
      <form class="agent-form" onSubmit={save} noValidate>
        {general.length > 0 && (
          <div class="state error form-problems" role="alert">
            <strong>Not saved.</strong>
            <ul>
              {general.map((problem) => (
                <li key={problem.path}>{problem.path ? `${problem.path}: ${problem.message}` : problem.message}</li>
              ))}
            </ul>
          </div>
        )}
        <div class="sections">
          {sections.map((section) => (
            <SectionView
              key={sectionKey(section)}
              section={section}
              value={section.member ? (draft[section.member] ?? null) : draft.general}
              problems={problems}
              onChange={(field, raw) => change(section, field, raw)}
            />
          ))}
          <Tools tools={agent.tools} />
          <OtherSettings agent={agent} />
        </div>
        <section class="save-bar" aria-label="Save changes">
          <p class="save-state" role="status">
            {lacksUpdate
              ? `${lacksUpdate}: changes cannot be saved.`
              : update.fetching
                ? 'Saving…'
                : saved
                  ? 'Saved.'
                  : dirty.size > 0
                    ? `Unsaved changes in ${[...dirty].map((key) => sections.find((s) => sectionKey(s) === key)!.title).join(', ')}`
                    : 'No changes.'}
          </p>
          <button type="button" disabled={dirty.size === 0 || update.fetching} onClick={discard}>
            Discard
          </button>
          <button
            type="submit"
            class="primary"
            disabled={dirty.size === 0 || update.fetching || lacksUpdate !== null}
            title={lacksUpdate ?? undefined}
          >
            Save changes
          </button>
        </section>
      </form>
    </section>
  );
}

interface SectionViewProps {
  section: SectionSpec;
  value: WireConfig | null;
  problems: Problem[];
  onChange: (field: FieldSpec, raw: string | boolean) => void;
}

function SectionView({ section, value, problems, onChange }: SectionViewProps) {
  const prefix = section.member ? `${snakeCase(section.member)}.` : null;
  const shown = new Set(section.fields.map((field) => field.key));
  const others = value ? Object.entries(value).filter(([key]) => !shown.has(key) && key !== 'fallbacks') : [];
  const fallbacks = Array.isArray(value?.fallbacks) ? (value.fallbacks as WireConfig[]) : [];
  const ownFields = new Set(section.fields.map((field) => pathOf(section, field)));
  const sectionProblems = prefix
    ? problems.filter((problem) => problem.path.startsWith(prefix) && !ownFields.has(problem.path))
    : [];
  const titleId = `section-${sectionKey(section)}`;
  return (
    <fieldset class={`card section section-${sectionKey(section)}`} aria-labelledby={titleId}>
      <legend class="visually-hidden">{section.title}</legend>
      <header class="card-title">
        <h2 id={titleId}>{section.title}</h2>
        {section.member && value === null && <span class="tag muted">not set</span>}
      </header>
      <p class="blurb">{section.blurb}</p>
      <div class="fields">
        {section.fields.map((field) => {
          const path = pathOf(section, field);
          const problem = problems.find((p) => p.path === path);
          return (
            <FieldView
              key={field.key}
              field={field}
              path={path}
              value={value?.[field.key]}
              problem={problem}
              onChange={(raw) => onChange(field, raw)}
            />
          );
        })}
      </div>
      {sectionProblems.length > 0 && (
        <ul class="field-error section-problems" role="alert">
          {sectionProblems.map((problem) => (
            <li key={problem.path}>
              {problem.path.slice(prefix!.length) || section.title}: {problem.message}
            </li>
          ))}
        </ul>
      )}
      {fallbacks.length > 0 && (
        <div class="fallbacks">
          <h3>Fallbacks, in order</h3>
          <ol>
            {fallbacks.map((fallback, index) => (
              <li key={index}>{describeFallback(fallback)}</li>
            ))}
          </ol>
        </div>
      )}
      {others.length > 0 && <ReadOnly entries={others} title="Also set" />}
    </fieldset>
  );
}

/** "anthropic · claude-3-5-haiku", and its own fallbacks after it. */
function describeFallback(config: WireConfig): string {
  const own = [config.provider, config.model, config.voice_id]
    .filter((part) => typeof part === 'string' && part)
    .join(' · ');
  const next = Array.isArray(config.fallbacks) ? (config.fallbacks as WireConfig[]).map(describeFallback) : [];
  return next.length ? `${own}, then ${next.join(', then ')}` : own;
}

interface FieldViewProps {
  field: FieldSpec;
  path: string;
  value: unknown;
  problem: Problem | undefined;
  onChange: (raw: string | boolean) => void;
}

function FieldView({ field, path, value, problem, onChange }: FieldViewProps) {
  const id = fieldId(path);
  const described =
    [problem ? `${id}-error` : null, field.hint ? `${id}-hint` : null].filter(Boolean).join(' ') || undefined;
  const common = { id, name: path, 'aria-invalid': problem ? true : undefined, 'aria-describedby': described };
  const text = value === undefined || value === null ? '' : String(value);
  let control: JSX.Element;
  if (field.kind === 'checkbox') {
    control = (
      <input
        type="checkbox"
        {...common}
        checked={value === true}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
    );
  } else if (field.kind === 'textarea') {
    control = <textarea {...common} rows={3} value={text} onInput={(event) => onChange(event.currentTarget.value)} />;
  } else if (field.kind === 'select') {
    const options = field.options!.includes(text) || text === '' ? field.options! : [text, ...field.options!];
    control = (
      <select {...common} value={text} onChange={(event) => onChange(event.currentTarget.value)}>
        {text === '' && <option value="">—</option>}
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    );
  } else if (field.kind === 'number') {
    control = (
      <input
        {...common}
        type="number"
        inputMode="decimal"
        step={field.step ?? 'any'}
        min={field.min}
        max={field.max}
        value={text}
        onInput={(event) => onChange(event.currentTarget.value)}
      />
    );
  } else {
    control = <input {...common} type="text" value={text} onInput={(event) => onChange(event.currentTarget.value)} />;
  }
  return (
    <div class={`field field-${field.kind}${problem ? ' invalid' : ''}`} data-path={path}>
      <label for={id}>{field.label}</label>
      {control}
      {field.hint && (
        <span class="hint" id={`${id}-hint`}>
          {field.hint}
        </span>
      )}
      {problem && (
        <span class="field-error" id={`${id}-error`} role="alert">
          {problem.message}
        </span>
      )}
    </div>
  );
}

const shownValue = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function ReadOnly({ entries, title }: { entries: [string, unknown][]; title: string }) {
  return (
    <details class="read-only">
      <summary>
        {title} ({entries.length})
      </summary>
      <dl class="pairs compact">
        {entries.map(([key, value]) => (
          <div key={key}>
            <dt>{words(key)}</dt>
            <dd>{shownValue(value)}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

function Tools({ tools }: { tools: AgentTool[] }) {
  return (
    <section class="card section section-tools" aria-labelledby="section-tools">
      <header class="card-title">
        <h2 id="section-tools">Tools</h2>
      </header>
      <p class="blurb">HTTP requests the agent may make during a call (set with setAgentTools).</p>
      {tools.length === 0 ? (
        <p class="muted">No tools.</p>
      ) : (
        <ul class="tools">
          {tools.map((tool) => (
            <li key={tool.id} class={tool.isEnabled ? '' : 'disabled'}>
              <div>
                <strong>{tool.name}</strong> {!tool.isEnabled && <span class="tag muted">disabled</span>}
              </div>
              <code>
                {tool.method} {tool.url || '(no URL)'}
              </code>
              {tool.description && <p>{tool.description}</p>}
              {tool.parameters.length > 0 && (
                <p class="muted">
                  {tool.parameters
                    .map((parameter) => `${parameter.name}: ${parameter.type}${parameter.required ? '' : '?'}`)
                    .join(', ')}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function OtherSettings({ agent }: { agent: AgentDetail }) {
  const set = otherMembers.filter((member) => agent[member]);
  return (
    <section class="card section section-other" aria-labelledby="section-other">
      <header class="card-title">
        <h2 id="section-other">Other settings</h2>
      </header>
      <p class="blurb">Turn taking, goodbye, call duration and background sound (change them through the API).</p>
      {set.length === 0 ? (
        <p class="muted">None set.</p>
      ) : (
        set.map((member) => (
          <ReadOnly key={member} title={words(snakeCase(member))} entries={Object.entries(agent[member]!.json)} />
        ))
      )}
    </section>
  );
}
