import type { Delivery, MailboxMessage } from '../../../modules/exchange/index.ts';
import { DTE_DELIVERY_SUBJECT } from '../../../modules/dte/index.ts';
import { html, type SafeHtml } from '../../shared/html.ts';
import type { Messages } from '../i18n/index.ts';
import { badge, dl, linkButton, notice, pager, section, table, type Tone } from '../ui/components.ts';
import { formatDateTime, formatNumber } from '../ui/format.ts';
import { layout, type PageContext } from '../ui/layout.ts';

/** The local mailbox (docs/exchange.md): the e-mails to receptors kept when there is no SMTP_URL. */
const STATUS_TONE: Record<string, Tone> = { pending: 'info', sent: 'ok', failed: 'bad', skipped: 'neutral' };

export const deliveryStatus = (status: string, t: Messages): SafeHtml =>
  badge(t.exchange.statusLabel[status] ?? status, STATUS_TONE[status] ?? 'neutral');

const size = (bytes: number, t: Messages) => (bytes < 1024 ? `${bytes} B` : `${formatNumber(Math.round(bytes / 102.4) / 10, t)} KB`);

const documentLink = (m: MailboxMessage) => `/tenants/${m.tenantId}/documents/${m.about.id}`;

export function mailboxView(
  ctx: PageContext,
  o: { messages: MailboxMessage[]; iterator: string | null; onFirst: boolean; transport: 'smtp' | 'mailbox' },
): string {
  const t = ctx.t;
  const body = html`${notice(o.transport === 'mailbox' ? t.exchange.mailboxIntro : t.exchange.mailboxSmtp, 'info')}${section(
    t.exchange.mailboxTitle,
    html`${table({
      caption: t.exchange.mailboxTitle,
      head: [t.exchange.date, t.exchange.to, t.exchange.subject, t.exchange.attachments],
      empty: t.exchange.mailboxNone,
      rows: o.messages.map((m) => [
        html`<a href="/mailbox/${m.id}">${formatDateTime(m.createdAt, t)}</a>`,
        m.to,
        m.subject,
        m.attachments.map((a) => a.filename).join(', '),
      ]),
    })}${pager({ path: '/mailbox', query: {}, iterator: o.iterator, t, onFirst: o.onFirst })}`,
    { id: 'mailbox' },
  )}`;
  return layout(ctx, { title: t.exchange.mailboxTitle, active: 'mailbox', body });
}

export function mailboxMessageView(ctx: PageContext, m: MailboxMessage): string {
  const t = ctx.t;
  const base = `/mailbox/${m.id}`;
  return layout(ctx, {
    title: m.subject,
    active: 'mailbox',
    body: html`<p><a href="/mailbox">← ${t.exchange.mailboxTitle}</a></p>
<p class="row">${linkButton(`${base}/raw`, t.exchange.downloadEml, 'secondary')} ${
      // An answer to a supplier (a received document's) has no page of its own in the dashboard yet.
      m.about.kind === DTE_DELIVERY_SUBJECT ? linkButton(documentLink(m), t.exchange.document, 'secondary') : ''
    }</p>
${section(
  t.exchange.subject,
  dl([
    [t.exchange.date, formatDateTime(m.createdAt, t)],
    [t.exchange.from, m.from],
    [t.exchange.to, m.to],
    [t.exchange.subject, m.subject],
    [t.exchange.messageId, html`<code>${m.messageId}</code>`],
    [t.exchange.size, size(m.size, t)],
  ]),
  { id: 'message' },
)}
${section(
  t.exchange.attachments,
  table({
    caption: t.exchange.attachments,
    head: [t.exchange.attachments, 'Content-Type', t.exchange.size],
    numeric: [2],
    empty: '—',
    rows: m.attachments.map((a) => [
      html`<a href="${base}/attachments/${String(a.index)}">${a.filename}</a>`,
      html`<code>${a.contentType}</code>`,
      size(a.size, t),
    ]),
  }),
  { id: 'attachments' },
)}`,
  });
}

/** The deliveries section of a document's page. */
export function deliveriesSection(deliveries: Delivery[], mailbox: Map<string, MailboxMessage>, t: Messages): SafeHtml {
  return section(
    t.exchange.deliveries,
    table({
      caption: t.exchange.deliveries,
      head: [t.exchange.date, t.common.status, t.exchange.to, t.exchange.attempts, t.exchange.lastError, t.exchange.messageId],
      numeric: [3],
      empty: t.exchange.deliveriesNone,
      rows: deliveries.map((d) => {
        const inMailbox = mailbox.get(d.id);
        return [
          html`${formatDateTime(d.createdAt, t)}<br><span class="muted">${t.exchange.trigger[d.trigger] ?? d.trigger}</span>`,
          html`${deliveryStatus(d.status, t)}${d.skipReason ? html`<br><span class="muted">${t.exchange.skipReason[d.skipReason] ?? d.skipReason}</span>` : ''}${
            d.sentAt ? html`<br><span class="muted">${formatDateTime(d.sentAt, t)}</span>` : ''
          }`,
          d.to ?? '—',
          `${d.attempts}/${d.maxAttempts}`,
          d.lastError ? html`<code>${d.lastError.code}</code> <span class="muted">${d.lastError.message}</span>` : '—',
          d.messageId
            ? html`<code>${d.messageId}</code>${inMailbox ? html`<br><a href="/mailbox/${inMailbox.id}">${t.exchange.openMessage}</a>` : ''}`
            : '—',
        ];
      }),
    }),
    { id: 'deliveries' },
  );
}
