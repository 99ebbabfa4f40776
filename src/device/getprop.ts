/**
 * `getprop` output: one `[name]: [value]` per property (toybox `toys/android/getprop.c`
 * prints `[%s]: [%s]\n`; adbkit's GetPropertiesCommand parses the same shape). A value may
 * itself contain newlines, so the match runs over the whole text.
 */
export function parseGetprop(text: string): Record<string, string> {
  const properties: Record<string, string> = {};
  const entry = /^\[([^\]\n]+)\]: \[([\s\S]*?)\]$/gm;
  for (const match of text.replace(/\r\n/g, '\n').matchAll(entry)) {
    const [, name, value] = match;
    if (name !== undefined && value !== undefined) properties[name] = value;
  }
  return properties;
}
