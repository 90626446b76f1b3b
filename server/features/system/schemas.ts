/**
 * DTOs of health, identity, devices and models.
 */
import { z } from 'zod';

export const HealthResponse = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    webhooks: z.object({
      events_dropped: z.number().int().nonnegative(),
      deliveries_failed: z.number().int().nonnegative(),
    }),
    license: z.object({ fail_open_total: z.number().int().nonnegative() }),
  })
  .meta({ id: 'HealthResponse' });

export const WhoamiResponse = z
  .object({
    token_id: z.string(),
    scopes: z.array(z.enum(['read', 'record', 'write', 'delete'])),
    license_tier: z.enum(['pro', 'unverifiable']).meta({
      description: 'pro, or unverifiable when license verification could not complete and the request was let through',
    }),
    server_version: z.string(),
    origin: z.enum(['loopback', 'paired', 'lan']),
    kind: z.enum(['standard', 'first_party', 'assistant']),
  })
  .meta({ id: 'WhoamiResponse' });

const Device = z
  .object({
    name: z.string(),
    device_type: z.enum(['input', 'output']),
    simulated: z.boolean(),
    backend: z.string().meta({ description: 'where the device comes from: alsa, pulse or simulator' }),
  })
  .meta({ id: 'Device' });

export const DeviceListResponse = z.object({ devices: z.array(Device) }).meta({ id: 'DeviceListResponse' });

const Model = z
  .object({
    name: z.string(),
    size_mb: z.number().nonnegative(),
    accuracy: z.enum(['low', 'medium', 'high']),
    speed: z.enum(['slow', 'medium', 'fast']),
    status: z.enum(['available']),
    description: z.string(),
    is_custom: z.boolean(),
  })
  .meta({ id: 'Model' });

export const ModelListResponse = z.object({ models: z.array(Model) }).meta({ id: 'ModelListResponse' });
