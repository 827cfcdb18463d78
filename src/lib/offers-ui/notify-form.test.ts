import { describe, expect, it } from 'vitest';
import { DEFAULT_NOTIFY_FORM } from '../tenancy/config.ts';
import { missingFields, submittedValues, visibleFields } from './notify-form.ts';

const names = (values: Record<string, string>) => visibleFields(DEFAULT_NOTIFY_FORM, values).map((f) => f.name);

describe('notify form (default form)', () => {
  it('shows only Channel until a channel other than Message is chosen', () => {
    expect(names({})).toEqual(['Channel']);
    expect(names({ Channel: 'Message' })).toEqual(['Channel']);
    for (const channel of ['PhoneCall', 'InPerson', 'Other'])
      expect(names({ Channel: channel })).toEqual(['Channel', 'Client_Feedback', 'Comment']);
  });

  it('requires Channel, then Client_Feedback when shown; Comment stays optional', () => {
    expect(missingFields(DEFAULT_NOTIFY_FORM, {})).toEqual(['Channel']);
    expect(missingFields(DEFAULT_NOTIFY_FORM, { Channel: 'Message' })).toEqual([]);
    expect(missingFields(DEFAULT_NOTIFY_FORM, { Channel: 'PhoneCall' })).toEqual(['Client_Feedback']);
    expect(missingFields(DEFAULT_NOTIFY_FORM, { Channel: 'PhoneCall', Client_Feedback: '  ' })).toEqual([
      'Client_Feedback',
    ]);
    expect(missingFields(DEFAULT_NOTIFY_FORM, { Channel: 'InPerson', Client_Feedback: 'Interested' })).toEqual([]);
  });

  it('drops values of hidden fields and empty values from the body', () => {
    expect(
      submittedValues(DEFAULT_NOTIFY_FORM, { Channel: 'Message', Client_Feedback: 'Neutral', Comment: 'left over' }),
    ).toEqual({ Channel: 'Message' });
    expect(
      submittedValues(DEFAULT_NOTIFY_FORM, { Channel: 'Other', Client_Feedback: 'Neutral', Comment: ' ' }),
    ).toEqual({ Channel: 'Other', Client_Feedback: 'Neutral' });
    expect(
      submittedValues(DEFAULT_NOTIFY_FORM, {
        Channel: 'Other',
        Client_Feedback: 'Neutral',
        Comment: ' Call back in May ',
      }),
    ).toEqual({ Channel: 'Other', Client_Feedback: 'Neutral', Comment: 'Call back in May' });
  });
});
