// A server URL fit for messages and logs: its password masked.

/** `url` with its password replaced by `***`; `<invalid url>` when it does not parse. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<invalid url>';
  }
}
