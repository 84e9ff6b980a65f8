import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * `livemode` on every object the API returns (docs/design.md "Test mode"). A key reaches only the
 * objects of its own mode (every store scopes by the key's scope), so the request's mode is each
 * returned object's mode: this hook writes it wherever the route's response schema declares a
 * `livemode` property and the view left it out (a view that knows better, like a tenant's, keeps
 * its own). Routes and services stay as they were; the schema is the one list of where it goes.
 *
 * The schema is read once per route and status into a plan of the paths that hold such objects,
 * so a response pays only for the objects that get the field.
 */
interface Plan {
  /** The object here declares `livemode`. */
  self: boolean;
  props: [string, Plan][];
  items: Plan | undefined;
}

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

const EMPTY: Plan = { self: false, props: [], items: undefined };
const isEmpty = (p: Plan) => !p.self && p.props.length === 0 && !p.items;

function merge(a: Plan, b: Plan): Plan {
  if (isEmpty(a)) return b;
  if (isEmpty(b)) return a;
  const props = new Map(a.props);
  for (const [k, p] of b.props) props.set(k, props.has(k) ? merge(props.get(k)!, p) : p);
  const items = a.items && b.items ? merge(a.items, b.items) : (a.items ?? b.items);
  return { self: a.self || b.self, props: [...props], items };
}

/** The plan of a schema, depth-bounded (the API's schemas are trees, never recursive). */
export function planOf(schema: Schema | undefined, depth = 0): Plan {
  if (!schema || typeof schema !== 'object' || depth > 12) return EMPTY;
  let plan: Plan = EMPTY;
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) plan = merge(plan, planOf(alt, depth + 1));
  if (schema.properties) {
    const props: [string, Plan][] = [];
    for (const [k, s] of Object.entries(schema.properties)) {
      const p = planOf(s, depth + 1);
      if (!isEmpty(p)) props.push([k, p]);
    }
    plan = merge(plan, { self: 'livemode' in schema.properties, props, items: undefined });
  }
  if (schema.items) {
    const items = planOf(schema.items, depth + 1);
    if (!isEmpty(items)) plan = merge(plan, { self: false, props: [], items });
  }
  return plan;
}

/** Writes `livemode` where the plan says, leaving a value the view set. */
export function applyPlan(plan: Plan, value: unknown, livemode: boolean): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (plan.items) for (const v of value) applyPlan(plan.items, v, livemode);
    return;
  }
  const o = value as Record<string, unknown>;
  if (plan.self && o.livemode === undefined) o.livemode = livemode;
  for (const [k, p] of plan.props) applyPlan(p, o[k], livemode);
}

export default fp(async function livemodePlugin(app: FastifyInstance) {
  const plans = new WeakMap<object, Plan>();
  const planFor = (req: FastifyRequest, status: number): Plan => {
    const responses = (req.routeOptions.schema as { response?: Record<string, Schema> } | undefined)?.response;
    const schema = responses?.[String(status)] ?? responses?.[`${String(status)[0]}xx`];
    if (!schema) return EMPTY;
    let plan = plans.get(schema);
    if (!plan) plans.set(schema, (plan = planOf(schema)));
    return plan;
  };
  app.addHook('preSerialization', async (req, reply, payload) => {
    if (!req.auth || payload === null || typeof payload !== 'object' || Buffer.isBuffer(payload)) return payload;
    const plan = planFor(req, reply.statusCode);
    if (!isEmpty(plan)) applyPlan(plan, payload, req.auth.livemode);
    return payload;
  });
});
