// The SDK from ESM, as a user's module imports it (.ci/sdk-package).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { DteClient, DteNotFoundError, verifyWebhook } from '@dte-service/sdk';
import checks from './check.cjs';

await checks.check({ DteClient, DteNotFoundError, verifyWebhook, assert, crypto });
console.log('ok (import)');
