// The SDK from CommonJS, as a user's script loads it (.ci/sdk-package).
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { DteClient, DteNotFoundError, verifyWebhook } = require('@dte-service/sdk');
const { check } = require('./check.cjs');

check({ DteClient, DteNotFoundError, verifyWebhook, assert, crypto }).then(
  () => console.log('ok (require)'),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
