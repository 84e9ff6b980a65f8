import type { DataCipher } from '../../secrets/data-cipher.ts';
import { createCafCache } from './caf-cache.ts';
import { createFolioAllocation, type FolioAllocationDeps } from './folios.allocation.ts';
import { createFolioInventory } from './folios.inventory.ts';
import { createFolioRequests, type FolioRequestsDeps } from './folios.request.ts';
import { createCafUpload } from './folios.upload.ts';

/**
 * The folios service the rest of the app uses, composed from one part per invariant:
 * - folios.request.ts — CAF requests as durable jobs, and the bounded wait for them;
 * - folios.upload.ts — a CAF file uploaded as the SII hands it out, checked and stored like a requested one;
 * - folios.inventory.ts — the stock per type, its threshold and the folio.low alarm;
 * - folios.allocation.ts — handing folios to the DTE module, never the same one twice;
 * - caf-cache.ts — the parsed, decrypted CAFs the allocation hands out with its folios.
 * The annulment of voided folios is its own service (folios.annul.ts). See docs/folios.md.
 */
export interface FoliosDeps extends Omit<FolioRequestsDeps, 'dataCipher'>, Omit<FolioAllocationDeps, 'cafs'> {
  /** Encrypts a new CAF's private key (requests, uploads); decrypts it when the CAF is first used (the cache). */
  dataCipher: Pick<DataCipher, 'encrypt' | 'decryptString'>;
}

export function createFoliosService(deps: FoliosDeps) {
  const requests = createFolioRequests(deps);
  const uploads = createCafUpload(deps);
  const stock = createFolioInventory(deps);
  const allocation = createFolioAllocation({ ...deps, cafs: createCafCache(deps.dataCipher) });
  return {
    request: requests.request,
    getRequest: requests.getRequest,
    requestOutcomeById: requests.outcomeById,
    runRequestJob: requests.runRequestJob,
    uploadCaf: uploads.upload,
    uploadedCafById: uploads.byId,
    inventory: stock.inventory,
    setThreshold: stock.setThreshold,
    reserve: allocation.reserve,
    markUsedSql: allocation.markUsedSql,
    release: allocation.release,
    sweepReservations: allocation.sweepReservations,
  };
}

export type FoliosService = ReturnType<typeof createFoliosService>;
