// Support code for the Playwright specs that wayfarer exported (one spec per failure it
// found). It watches the page for what wayfarer counts as failures and performs the few
// actions Playwright has no single call for, the way wayfarer performed them.
// Written by wayfarer-export; edit freely.
import type { CDPSession, Locator, Page, Request } from '@playwright/test';
import { test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createContext, runInContext } from 'node:vm';

export interface WatchOptions {
  /** The application's origins (`undefined` entries are ignored): HTTP errors and
   *  pending requests of other origins are not the application's. */
  origins: (string | undefined)[];
  /** Count console.error and console.assert messages (wayfarer's `oracles.console_errors`). */
  consoleErrors: boolean;
  /** Count HTTP 4xx answers too (wayfarer's `oracles.http_4xx`); 5xx answers always count. */
  http4xx: boolean;
  /** Known noise (wayfarer's `oracles.ignore`): a failure whose "kind: message" matches
   *  one of these is not counted. */
  ignore?: RegExp[];
}

/** Watches one page from the first step to the last and collects its failures. */
export class AppWatch {
  /** "kind: message" of each failure, in order, with wayfarer's kind names. */
  readonly failures: string[] = [];
  private readonly origins: Set<string>;
  private readonly pending = new Set<Request>();

  constructor(private readonly page: Page, private readonly opts: WatchOptions) {
    this.origins = new Set(
      opts.origins.filter((o): o is string => !!o).map((o) => new URL(o).origin),
    );
    // Uncaught exceptions and unhandled promise rejections both arrive here.
    page.on('pageerror', (e) => this.add('exception', e.name ? `${e.name}: ${e.message}` : e.message));
    page.on('console', (m) => {
      if (!opts.consoleErrors || (m.type() !== 'error' && m.type() !== 'assert')) return;
      // Chromium also logs every failed resource load; wayfarer counts those as HTTP
      // failures (below), not as console errors.
      if (m.text().startsWith('Failed to load resource:')) return;
      this.add('console_error', m.text());
    });
    page.on('response', (r) => {
      const s = r.status();
      if (!this.inApp(r.url()) || s < 400 || (s < 500 && !opts.http4xx)) return;
      const u = new URL(r.url());
      this.add(s >= 500 ? 'http_5xx' : 'http_4xx', `HTTP ${s} from ${u.origin}${u.pathname}`);
    });
    page.on('crash', () => this.add('page_crash', 'the page crashed'));
    // Requests still running mean the page is not done yet (see settle).
    page.on('request', (r) => {
      const streaming = ['eventsource', 'websocket'].includes(r.resourceType());
      if (this.inApp(r.url()) && !streaming && !r.url().endsWith('/favicon.ico')) this.pending.add(r);
    });
    page.on('requestfinished', (r) => this.pending.delete(r));
    page.on('requestfailed', (r) => this.pending.delete(r));
  }

  /** Whether `url` belongs to the application. */
  inApp(url: string): boolean {
    try {
      return this.origins.has(new URL(url).origin);
    } catch {
      return false;
    }
  }

  private add(kind: string, message: string): void {
    const line = `${kind}: ${message}`;
    if (!(this.opts.ignore ?? []).some((re) => re.test(line))) this.failures.push(line);
  }

  /** Wait as wayfarer waits after each action: the page loaded and no request of the
   *  application pending for `quietMs`; never longer than `timeoutMs`. */
  async settle(quietMs = 100, timeoutMs = 5_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    await this.page.waitForLoadState('load', { timeout: timeoutMs }).catch(() => {});
    let quietSince = Date.now();
    while (Date.now() < end) {
      if (this.pending.size > 0) quietSince = Date.now();
      else if (Date.now() - quietSince >= quietMs) return;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** The element step `n` acts on (`what`, recorded on `url`), once it is in the page:
   *  a page that no longer has it (or has it twice) fails here, with a message that says
   *  the page changed, not as the failure this test guards against. A list of CSS
   *  selectors is a path through shadow roots and frames (wayfarer's `host >>> inner`). */
  async find(
    n: number,
    what: string,
    url: string,
    target: Locator | string[],
    timeoutMs = 10_000,
  ): Promise<Locator> {
    let last: Locator | null = Array.isArray(target) ? null : target;
    try {
      if (Array.isArray(target)) {
        let cur = this.page.locator(target[0]);
        for (const inner of target.slice(1)) {
          await cur.waitFor({ state: 'attached', timeout: timeoutMs });
          // A frame's document is entered; Playwright's CSS already pierces open shadow roots.
          const tag = await cur.evaluate((e) => e.localName);
          cur = tag === 'iframe' || tag === 'frame' ? cur.contentFrame().locator(inner) : cur.locator(inner);
          last = cur;
        }
        last = cur;
      }
      await last!.waitFor({ state: 'attached', timeout: timeoutMs });
      return last!;
    } catch {
      const count = last ? await last.count().catch(() => 0) : 0;
      const found = count > 1 ? `matches ${count} elements` : 'not found';
      throw new Error(
        `step ${n}: ${what} ${found} on ${url}; the page changed since the trace was recorded`,
      );
    }
  }

  /** History back, as wayfarer goes back: never out of the application (e.g. to the
   *  blank page before the first step). */
  async back(): Promise<void> {
    await this.historyStep(-1);
  }

  async forward(): Promise<void> {
    await this.historyStep(1);
  }

  /** Move `delta` entries through the session history as wayfarer does: never out of the
   *  application (to the blank page before the start, another origin), and then not at
   *  all; going out and coming back would reload the page and lose what it held. */
  private async historyStep(delta: number): Promise<void> {
    const cdp = await this.page.context().newCDPSession(this.page);
    try {
      const { currentIndex, entries } = await cdp.send('Page.getNavigationHistory');
      const to = entries[currentIndex + delta];
      if (!to || !this.inApp(to.url)) return;
      if (delta < 0) await this.page.goBack();
      else await this.page.goForward();
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  }
}

/** Start watching `page`; call before the first step. */
export function watchApp(page: Page, opts: WatchOptions): AppWatch {
  return new AppWatch(page, opts);
}

/** Type as wayfarer types: replace the field's content, then leave the field so change
 *  handlers run. */
export async function fill(target: Locator, value: string): Promise<void> {
  try {
    await target.fill(value);
  } catch (e) {
    // Playwright refuses values these inputs cannot hold; wayfarer typed them anyway.
    const type = ((await target.getAttribute('type').catch(() => null)) ?? '').toLowerCase();
    if (type === 'number') {
      // Keystrokes, as a user's: the browser drops what a number field does not accept.
      await target.clear();
      await target.pressSequentially(value);
    } else if (['date', 'datetime-local', 'month', 'week', 'time', 'color', 'range'].includes(type)) {
      // No text entry in these: wayfarer sets the value the way a picker does.
      await target.evaluate((el, v) => {
        const input = el as HTMLInputElement;
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input, v);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        input.dispatchEvent(new Event('change', { bubbles: true }));
      }, value);
    } else {
      throw e;
    }
  }
  await target.blur();
}

/** Submit the form that holds `target`, with its submit event (requestSubmit). */
export async function submit(target: Locator): Promise<void> {
  await target.evaluate((el) => {
    const form = (el as HTMLInputElement).form ?? el.closest('form');
    if (!form) throw new Error('the element is not in a form');
    if (form.requestSubmit) form.requestSubmit();
    else form.submit();
  });
}

/** Choose the first enabled option that is not selected yet (a select step whose trace
 *  holds no value). */
export async function selectAnother(target: Locator): Promise<void> {
  const values = await target.evaluate((el) =>
    Array.from((el as HTMLSelectElement).options)
      .filter((o) => !o.disabled && !o.selected && o.value !== '')
      .map((o) => o.value),
  );
  if (values.length) await target.selectOption(values[0]);
}

/** A secret's environment variable is not set: the test cannot type it. */
export function missing(name: string): never {
  throw new Error(
    `environment variable ${name} is not set: this test types its value, which wayfarer never writes into files`,
  );
}

/** The properties of the specification wayfarer checked (`--spec`), checked here the way
 *  wayfarer checks them: the bundle runs in every document of the page, where one
 *  evaluation after each step reads all its extractors; the properties step in Node with
 *  those values. `violations` holds wayfarer's message for each property violated. */
export class Properties {
  readonly violations: string[] = [];
  private readonly driver: any;
  /** The cells' names, by index (for an extractor's error). */
  private readonly cells: string[];
  private seenFailures = 0;
  private cdp: CDPSession | undefined;
  private historyFrom: number | undefined;

  constructor(private readonly page: Page, private readonly app: AppWatch, private readonly bundle: string) {
    // A context of its own: the bundle defines globalThis.__wayfarerSpec there.
    const sandbox: Record<string, unknown> = { console };
    createContext(sandbox);
    runInContext(bundle, sandbox);
    this.driver = (sandbox as any).__wayfarerSpec;
    this.cells = this.driver.describe().cells;
    this.driver.begin();
  }

  /** The tab's history as Bombadil 0.7's `navigationHistory` gives it, from the test's
   *  first checked state on (as wayfarer gives it from the episode's first). */
  private async history(): Promise<unknown> {
    try {
      this.cdp ??= await this.page.context().newCDPSession(this.page);
      const h: any = await this.cdp.send('Page.getNavigationHistory');
      const entry = (e: any) => ({ id: e.id, title: e.title, url: e.url });
      const i: number = h.currentIndex;
      this.historyFrom ??= h.entries[i]?.id;
      const start = Math.max(0, h.entries.findIndex((e: any) => e.id === this.historyFrom));
      return {
        back: h.entries.slice(start, i).map(entry),
        current: entry(h.entries[i]),
        forward: h.entries.slice(i + 1).map(entry),
      };
    } catch {
      return null;
    }
  }

  /** What Bombadil's extractors read besides the document: this state's page errors and
   *  console errors (the action that led here is not known to the test). */
  private partial(): any {
    const fresh = this.app.failures.slice(this.seenFailures);
    this.seenFailures = this.app.failures.length;
    const exceptions = fresh
      .filter((f) => f.startsWith('exception: '))
      .map((f) => ({ text: f.slice('exception: '.length), line: 0, column: 0, url: null, remote_object: null, stacktrace: null }));
    const consoleErrors = fresh
      .filter((f) => f.startsWith('console_error: '))
      .map((f) => ({ timestamp: 0, level: 'error', args: [f.slice('console_error: '.length)] }));
    return { errors: { uncaughtExceptions: exceptions }, console: consoleErrors, lastAction: null };
  }

  /** Check the properties on the state the page shows now. */
  async check(): Promise<void> {
    const partial = this.partial();
    partial.navigationHistory = await this.history();
    const extract = (p: unknown) => {
      const s = (globalThis as any).__wayfarerSpec;
      return s ? s.extract(p, document, window) : null;
    };
    let values = await this.page.evaluate(extract, partial);
    if (values === null) {
      // A document that loaded before the bundle was registered.
      await this.page.evaluate(this.bundle);
      values = await this.page.evaluate(extract, partial);
    }
    for (const [i, , err] of values ?? []) {
      if (err) this.violations.push(`the extractor of ${this.cells[i] ?? `cell #${i}`} ${err}`);
    }
    const { violations, errors } = this.driver.step(values ?? [], Date.now());
    for (const v of violations) this.violations.push(v.message);
    for (const e of errors) this.violations.push(`${e.property} could not be evaluated: ${e.message}`);
  }

  /** After the last step: wait until a property still open comes due (an
   *  `eventually(..).within(..)` deadline, at most a minute away), then check once more. */
  async settle(): Promise<void> {
    const due = this.driver.due();
    if (due === null) return;
    const wait = due - Date.now() + 100;
    if (wait > 60_000) return;
    if (wait > 0) await this.page.waitForTimeout(wait);
    await this.check();
  }
}

/** Load the bundled specification `file` (next to the test) into `page`, before the first
 *  step; returns its properties, to check after each step. */
export async function checkProperties(page: Page, app: AppWatch, file: string): Promise<Properties> {
  const bundle = readFileSync(resolve(dirname(test.info().file), file), 'utf8');
  await page.addInitScript({ content: bundle });
  return new Properties(page, app, bundle);
}
