/** printf(3)-style conversions used by printf and stat: flags `-+ #0`, width, precision. */
export interface Conversion {
  flags: string;
  width: number | undefined;
  precision: number | undefined;
  conv: string;
}

function pad(body: string, c: Conversion, numeric: boolean): string {
  const width = c.width ?? 0;
  if (body.length >= width) return body;
  if (c.flags.includes('-')) return body.padEnd(width, ' ');
  if (numeric && c.flags.includes('0') && c.precision === undefined) {
    const sign = /^[+\- ]/.test(body) ? body[0]! : '';
    const prefix = /^[+\- ]?0[xX]/.test(body) ? body.slice(sign.length, sign.length + 2) : '';
    const digits = body.slice(sign.length + prefix.length);
    return sign + prefix + digits.padStart(width - sign.length - prefix.length, '0');
  }
  return body.padStart(width, ' ');
}

export function formatInteger(value: bigint, c: Conversion): string {
  let body: string;
  const neg = value < 0n;
  const abs = neg ? -value : value;
  switch (c.conv) {
    case 'd':
    case 'i':
      body = abs.toString(10);
      break;
    case 'u':
      body = (neg ? (1n << 64n) + value : value).toString(10);
      break;
    case 'o':
      body = (neg ? (1n << 64n) + value : value).toString(8);
      if (c.flags.includes('#') && !body.startsWith('0')) body = `0${body}`;
      break;
    case 'x':
    case 'X': {
      body = (neg ? (1n << 64n) + value : value).toString(16);
      if (c.conv === 'X') body = body.toUpperCase();
      if (c.flags.includes('#') && value !== 0n) body = (c.conv === 'X' ? '0X' : '0x') + body;
      break;
    }
    default:
      throw new Error(`not an integer conversion: ${c.conv}`);
  }
  if (c.precision !== undefined) body = body.padStart(c.precision, '0');
  if (c.conv === 'd' || c.conv === 'i') {
    if (neg) body = `-${body}`;
    else if (c.flags.includes('+')) body = `+${body}`;
    else if (c.flags.includes(' ')) body = ` ${body}`;
  }
  return pad(body, c, true);
}

export function formatFloat(value: number, c: Conversion): string {
  const precision = c.precision ?? 6;
  let body: string;
  switch (c.conv) {
    case 'f':
    case 'F':
      body = Math.abs(value).toFixed(precision);
      break;
    case 'e':
    case 'E': {
      body = Math.abs(value).toExponential(precision).replace(/e([+-])(\d)$/, 'e$10$2');
      if (c.conv === 'E') body = body.toUpperCase();
      break;
    }
    default: {
      const p = precision === 0 ? 1 : precision;
      const exp = value === 0 ? 0 : Math.floor(Math.log10(Math.abs(value)));
      if (exp < -4 || exp >= p) body = Math.abs(value).toExponential(p - 1).replace(/\.?0+e/, 'e').replace(/e([+-])(\d)$/, 'e$10$2');
      else body = Math.abs(value).toFixed(Math.max(0, p - 1 - exp)).replace(/\.?0+$/, '');
      if (c.conv === 'G') body = body.toUpperCase();
    }
  }
  if (value < 0 || Object.is(value, -0)) body = `-${body}`;
  else if (c.flags.includes('+')) body = `+${body}`;
  else if (c.flags.includes(' ')) body = ` ${body}`;
  return pad(body, c, true);
}

export function formatString(value: string, c: Conversion): string {
  const body = c.precision === undefined ? value : value.slice(0, c.precision);
  return pad(body, c, false);
}
