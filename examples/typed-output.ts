/**
 * A typed final answer, offline: the scripted model (a deterministic test model that needs no
 * network or API key) calls a tool, answers with JSON that misses a field, is shown what is
 * wrong in one repair turn, and answers again. `send()` returns the value typed by the schema.
 *
 *   npx tsx examples/typed-output.ts
 */
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../src/index.js';

const Forecast = z.object({
  city: z.string(),
  temperatureC: z.number(),
  advice: z.string().optional(),
  hourly: z.record(z.string(), z.number()),
});

const weather = tool({
  name: 'get_weather',
  description: 'Current weather for a city.',
  input: z.object({ city: z.string() }),
  annotations: { readOnlyHint: true },
  execute: ({ city }) => JSON.stringify({ city, temperatureC: 4, at9: 2, at12: 5 }),
});

const model = scriptedModel([
  { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
  // the first answer forgets temperatureC: the run shows the model the issue once
  { output: { city: 'Oslo', advice: null, hourly: [] } },
  // answers come in the strict form providers are sent: a record as { key, value } entries,
  // an omitted optional field as null
  {
    output: {
      city: 'Oslo',
      temperatureC: 4,
      advice: 'Take a coat.',
      hourly: [
        { key: '09:00', value: 2 },
        { key: '12:00', value: 5 },
      ],
    },
  },
]);

const agent = createAgent({ model, tools: [weather], policy: { allow: ['get_weather'] } });
const result = await agent.send('What is the weather in Oslo?', {
  output: { schema: Forecast, name: 'forecast', description: 'A forecast for one city.' },
});
const forecast = result.output!; // typed: { city: string; temperatureC: number; ... }
console.log(
  `[sent] output format '${model.requests[0]!.output?.name}', strict: ${model.requests[0]!.output?.strict}`,
);
const repair = model.requests[2]!.messages.at(-1)!;
console.log(`[repair] ${repair.role === 'user' ? JSON.stringify(repair.content[0]) : ''}`);
console.log(`[output] ${JSON.stringify(forecast)}`);
console.log(
  `[typed] ${forecast.city} is ${forecast.temperatureC.toFixed(1)} C at noon: ${forecast.hourly['12:00']}`,
);
await agent.close();
