import { Type } from '@sinclair/typebox';
import { expect, it } from 'vitest';
import { applyPlan, planOf } from './livemode.ts';

const Obj = Type.Object({ id: Type.String(), livemode: Type.Boolean(), nested: Type.Object({ x: Type.Number() }) });

it('writes livemode where the schema declares it: the body, list items, nested lists and nullable objects', () => {
  const schema = Type.Object({
    data: Type.Array(Obj),
    one: Type.Union([Obj, Type.Null()]),
    envios: Type.Array(Obj),
    other: Type.Object({ id: Type.String() }),
  });
  const body = {
    data: [
      { id: 'a', nested: { x: 1 } },
      { id: 'b', livemode: true, nested: { x: 2 } },
    ],
    one: null as unknown,
    envios: [{ id: 'c' }],
    other: { id: 'd' },
  };
  applyPlan(planOf(schema), body, false);
  // A value the view set is kept (a tenant knows its own mode); nothing is added where undeclared.
  expect(body).toEqual({
    data: [
      { id: 'a', livemode: false, nested: { x: 1 } },
      { id: 'b', livemode: true, nested: { x: 2 } },
    ],
    one: null,
    envios: [{ id: 'c', livemode: false }],
    other: { id: 'd' },
  });
  const single = { id: 'e' };
  applyPlan(planOf(Obj), single, true);
  expect(single).toEqual({ id: 'e', livemode: true });
});

it('plans nothing for a schema without livemode', () => {
  const plan = planOf(Type.Object({ id: Type.String(), list: Type.Array(Type.Object({ a: Type.String() })) }));
  expect(plan).toEqual({ self: false, props: [], items: undefined });
});
